"""A GTK3 app with two top-level windows, "First" and "Second", each with an entry named
"Note": the WebDriver window tests switch between them. What each entry holds is written to
the file given as the first argument, one line per change ("Second: text"), so a test reads
the effect from the app itself.

Run under the system python (PyGObject): python3 two_windows.py OUT
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def window(title: str, x: int, out) -> Gtk.Window:
    win = Gtk.Window(title=title)
    win.set_default_size(360, 120)
    win.move(x, 40)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, margin=12)
    note = Gtk.Entry()
    note.get_accessible().set_name("Note")
    box.pack_start(note, False, False, 0)

    def changed(entry):
        out.write(f"{title}: {entry.get_text()}\n")
        out.flush()

    note.connect("changed", changed)
    win.add(box)
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    return win


def main() -> None:
    out = open(sys.argv[1], "a", encoding="utf-8")  # noqa: SIM115 (open for the app's life)
    window("First", 40, out)
    window("Second", 440, out)
    Gtk.main()


if __name__ == "__main__":
    main()
