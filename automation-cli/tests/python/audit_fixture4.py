"""The accessibility audit's GTK 4 fixture, for what GTK 3 cannot plant: a control that says
it is disabled (GTK 4 lets an app set its accessible state) and takes the keyboard focus.

    python3 audit_fixture4.py clean|disabled

- clean: two buttons, the first focused.
- disabled: the same, the first one's accessible state DISABLED while it holds the focus
  (disabled-focused).

Run under the system python (PyGObject with GTK 4).
"""

import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gtk  # noqa: E402


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "clean"
    app = Gtk.Application(application_id="org.automation.AuditFixture4")

    def activate(application):
        win = Gtk.ApplicationWindow(application=application, title=f"Audit fixture 4 ({mode})")
        win.set_default_size(320, 200)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12)
        busy = Gtk.Button(label="Busy")
        box.append(busy)
        box.append(Gtk.Button(label="Other"))
        win.set_child(box)
        win.present()
        if mode == "disabled":
            busy.update_state([Gtk.AccessibleState.DISABLED], [True])
        busy.grab_focus()
        print("ready", flush=True)

    app.connect("activate", activate)
    app.run([])


if __name__ == "__main__":
    main()
