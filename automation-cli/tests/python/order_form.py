"""A small GTK3 order form for the authoring tests, in two builds: as shipped, and with the
check box renamed (`--renamed`: "Gift wrap" becomes "Gift wrapping"), the change a test
exported from a session against the first must catch.

Run under the system python (PyGObject): python3 order_form.py [--renamed]
"""

import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402


def main() -> None:
    renamed = "--renamed" in sys.argv
    win = Gtk.Window(title="Order form")
    win.set_default_size(420, 260)
    grid = Gtk.Grid(row_spacing=8, column_spacing=8, margin=12)

    wrap = Gtk.CheckButton(label="Gift wrapping" if renamed else "Gift wrap")
    grid.attach(wrap, 0, 0, 2, 1)

    quantity_label = Gtk.Label(label="Quantity", xalign=0)
    quantity = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 10, 1)
    quantity.set_value(1)
    quantity.set_hexpand(True)
    quantity.get_accessible().set_name("Quantity")
    grid.attach(quantity_label, 0, 1, 1, 1)
    grid.attach(quantity, 1, 1, 1, 1)

    name_label = Gtk.Label(label="Name", xalign=0)
    name = Gtk.Entry()
    name.get_accessible().set_name("Name")
    grid.attach(name_label, 0, 2, 1, 1)
    grid.attach(name, 1, 2, 1, 1)

    order = Gtk.Button(label="Order")
    status = Gtk.Label(label="Nothing ordered", xalign=0)
    grid.attach(order, 0, 3, 1, 1)
    grid.attach(status, 1, 3, 1, 1)

    def on_order(_button):
        wrapped = " (wrapped)" if wrap.get_active() else ""
        status.set_text(f"Ordered {int(quantity.get_value())} for {name.get_text()}{wrapped}")

    order.connect("clicked", on_order)
    win.add(grid)
    win.connect("destroy", Gtk.main_quit)
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
