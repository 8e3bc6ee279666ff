"""The accessibility audit's fixture: one GTK 3 window per mode, each defect a rule of
`automation audit` must find, and a clean twin where it must find nothing.

    python3 audit_fixture.py clean|defects|trap

- clean: every control named, every field's label tied to it, names that tell siblings apart,
  targets of 32 px, text in the theme's colours, every control in the Tab chain.
- defects: an icon-only button with no name (control-name); an entry whose label is not tied
  to it (field-name); two sibling "Remove" buttons (duplicate-name); two 14 px buttons side by
  side (target-size); a label in #a0a0a0 on the window's #f6f5f4 (contrast); a button out of
  the Tab chain (keyboard-reach); a focusable button placed outside the window (focus-hidden).
- trap: an entry that swallows Tab and Ctrl+Tab, with buttons after it (keyboard-trap).

Run under the system python (PyGObject).
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk  # noqa: E402

CSS = b"""
button.tiny { min-height: 0; min-width: 0; padding: 0; margin: 0; }
label.faint { color: #a0a0a0; }
"""


def row(box, *widgets):
    line = Gtk.Box(orientation=Gtk.Orientation.HORIZONTAL, spacing=8)
    for w in widgets:
        line.pack_start(w, False, False, 0)
    box.pack_start(line, False, False, 0)
    return line


def sized(button, px):
    button.get_style_context().add_class("tiny")
    button.set_size_request(px, px)
    return button


def build(mode, box):
    clean = mode == "clean"
    # control-name: an icon-only button.
    icon = Gtk.Button.new_from_icon_name("emblem-system-symbolic", Gtk.IconSize.BUTTON)
    if clean:
        icon.get_accessible().set_name("Settings")
    row(box, icon)
    # field-name: a label beside an entry, tied to it or not.
    label = Gtk.Label(label="_City", use_underline=True)
    entry = Gtk.Entry()
    if clean:
        label.set_mnemonic_widget(entry)
    row(box, label, entry)
    # duplicate-name: two sibling buttons.
    names = ("Remove first", "Remove second") if clean else ("Remove", "Remove")
    row(box, *(Gtk.Button(label=n) for n in names))
    # target-size: two buttons side by side.
    px, gap = (32, 16) if clean else (14, 0)
    small = row(box, sized(Gtk.Button(label="+"), px), sized(Gtk.Button(label="-"), px))
    small.set_spacing(gap)
    # contrast: a note in #a0a0a0 on the window's #f6f5f4 (2.4:1), or in the theme's text colour.
    note = Gtk.Label(label="Shipping notes")
    if not clean:
        note.get_style_context().add_class("faint")
    row(box, note)
    # keyboard-reach: a button in the Tab chain or out of it.
    reach = Gtk.Button(label="Reachable" if clean else "Unreachable")
    reach.set_can_focus(clean)
    row(box, reach)
    if clean:
        return None
    # focus-hidden: a focusable button placed beyond the window's left edge.
    fixed = Gtk.Fixed()
    fixed.put(Gtk.Button(label="Offscreen"), -400, 0)
    fixed.set_size_request(10, 40)
    box.pack_start(fixed, False, False, 0)
    return None


def build_trap(box):
    trap = Gtk.Entry()
    trap.get_accessible().set_name("Code")

    def swallow(_widget, event):
        if event.keyval in (Gdk.KEY_Tab, Gdk.KEY_ISO_Left_Tab, Gdk.KEY_KP_Tab):
            # The app's own word that the key reached it and went nowhere (the test reads it).
            print("swallowed tab", flush=True)
            return True
        return False

    trap.connect("key-press-event", swallow)
    row(box, trap)
    row(box, Gtk.Button(label="Send"), Gtk.Button(label="Cancel"))
    return trap


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "clean"
    provider = Gtk.CssProvider()
    provider.load_from_data(CSS)
    Gtk.StyleContext.add_provider_for_screen(
        Gdk.Screen.get_default(), provider, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION
    )
    win = Gtk.Window(title=f"Audit fixture ({mode})")
    win.set_default_size(480, 420)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=12, margin=16)
    win.add(box)
    first = build_trap(box) if mode == "trap" else build(mode, box)
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    if mode == "trap":
        first.grab_focus()
    print("ready", flush=True)
    Gtk.main()


if __name__ == "__main__":
    main()
