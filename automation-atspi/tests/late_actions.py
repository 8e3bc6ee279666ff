"""A GTK 3 window with one link whose accessible lists no action until the app gets SIGUSR1:
an app answering an empty action list while it rebuilds a widget (LibreOffice's menu bar under
load). Its click action prints "clicked"; the pointer does nothing to it. (A link: the kit
tries a link's toolkit action first, as it does a menu's.)

    python3 late_actions.py          the link
    python3 late_actions.py menu     a menu bar whose "Edit" title lists no action at all; the
                                     app prints "shown" when its menu opens

Run under the system python (PyGObject).
"""

import signal
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Atk", "1.0")
from gi.repository import Atk, GLib, Gtk  # noqa: E402

READY = [False]


class LateAccessible(Gtk.ButtonAccessible, Atk.Action):
    def do_initialize(self, data):
        Gtk.ButtonAccessible.do_initialize(self, data)
        self.set_role(Atk.Role.LINK)

    def do_get_n_actions(self):
        return 1 if READY[0] else 0

    def do_do_action(self, i):
        if not (READY[0] and i == 0):
            return False
        print("clicked", flush=True)
        return True


class LateButton(Gtk.Button):
    pass


LateButton.set_accessible_type(LateAccessible)


class SilentTitleAccessible(Gtk.MenuItemAccessible, Atk.Action):
    def do_get_n_actions(self):
        return 0


class SilentTitle(Gtk.MenuItem):
    pass


SilentTitle.set_accessible_type(SilentTitleAccessible)


def menu_window(win):
    bar = Gtk.MenuBar()
    title = SilentTitle(label="Edit")
    menu = Gtk.Menu()
    menu.append(Gtk.MenuItem(label="Paste"))
    menu.connect("show", lambda *_: print("shown", flush=True))
    title.set_submenu(menu)
    bar.append(title)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    box.pack_start(bar, False, False, 0)
    box.pack_start(Gtk.Label(label="A menu bar"), True, True, 0)
    win.add(box)


def ready(*_):
    READY[0] = True
    print("ready", flush=True)
    return GLib.SOURCE_REMOVE


def main():
    win = Gtk.Window(title="Late actions")
    win.set_default_size(300, 120)
    if sys.argv[1:] == ["menu"]:
        menu_window(win)
    else:
        button = LateButton(label="Late")
        # A person's click does nothing here: only the toolkit's action prints.
        button.connect("button-press-event", lambda *_: True)
        win.add(button)
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, ready)
    Gtk.main()


if __name__ == "__main__":
    sys.exit(main())
