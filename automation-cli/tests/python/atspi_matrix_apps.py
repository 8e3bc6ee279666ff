"""The matrix's apps: how each starts, and its cells (widget × op × variant), in the order they
run — later cells start from the state earlier ones left, and each judges its own change."""

import asyncio

from atspi_matrix_lib import Widget as W, brief, other_field, other_state, state
from atspi_matrix_more import calc_cells, calc_prepare, eframe_cells, zenity_run

QT = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets"


def nothing_changes(b, a, _r):
    """A judge for a widget whose effect, if any, is unknown: any change counts."""
    ch = brief(a["w"]) != brief(b["w"])
    return False, ch


def shown(key):
    return other_state(key, "showing")


def on_screen(key, want=True):
    """A judge: the other widget `key` has (want) or lacks on-screen extents — for Qt, whose
    hidden pages keep `showing`."""
    def judge(b, a, _r):
        ext = lambda r: r.get("extents")  # noqa: E731
        has = lambda r: bool(ext(r)) and ext(r)[2] > 1 and ext(r)[3] > 1  # noqa: E731
        s = has(a[key]) == want
        return s, s and has(b[key]) != want
    return judge


def named(key, name):
    return other_field(key, "name", lambda v: v == name)


# ------------------------------------------------------------------------------------------
# GTK3: gtk3-widget-factory, its three pages
# ------------------------------------------------------------------------------------------

async def gtk3_cells(m):
    enabled = ["enabled", "sensitive", "showing"]
    off = ["enabled", "sensitive"]
    check = W("checkbutton", "CheckBox", {"role": "check box", "name": "checkbutton", "states": enabled,
                                          "not_states": ["checked"]})
    check_off = W("checkbutton (disabled)", "CheckBox", {"role": "check box", "name": "checkbutton",
                                                        "states": ["showing"], "not_states": off})
    toggle = W("togglebutton", "ToggleButton", {"role": "toggle button", "name": "togglebutton",
                                                "states": enabled, "not_states": ["checked"]})
    toggle_off = W("togglebutton (disabled)", "ToggleButton", {
        "role": "toggle button", "name": "togglebutton", "states": ["showing"], "not_states": off + ["checked"]})
    radio = W("radiobutton", "RadioButton", {"role": "radio button", "name": "radiobutton",
                                             "states": enabled, "not_states": ["checked"]})
    entry = W("entry", "TextInput", {"role": "text", "text": "", "states": enabled + ["editable"]})
    entry_off = W("entry (disabled)", "TextInput", {"role": "text", "text": "entry", "states": ["showing"],
                                                    "not_states": off})
    spin = W("spin button", "SpinButton", {"role": "spin button", "states": enabled})
    spin_off = W("spin button (disabled)", "SpinButton", {"role": "spin button", "states": ["showing"],
                                                         "not_states": off})
    slider = W("slider", "Slider", {"role": "slider", "states": enabled})
    slider_off = W("slider (disabled)", "Slider", {"role": "slider", "states": ["showing"], "not_states": off})
    combo = W("combo box", "ComboBox", {"role": "combo box", "name": "Left"})
    combo2 = W("combo Middle", "ComboBox", {"role": "combo box", "name": "Middle"})
    # Open, the items are the popup window's (GTK3 re-parents the menu; pyatspi still lists
    # it under the combo): the kit's is found by where it shows.
    item_open = W("combo item Middle", "MenuItem", {"role": "menu item", "name": "Middle",
                                                    "within": {"role": "combo box", "name": "Left"}})
    item_closed = W("combo item Right", "MenuItem", {"role": "menu item", "name": "Right",
                                                     "within": {"role": "combo box", "name": "Middle"}},
                    kit_within=combo2)
    tab2 = W("page tab", "Tab", {"role": "page tab", "name": "page 2", "states": ["showing"]})
    lorem = W("text view", "TextInput", {"role": "text", "name_contains": "", "states": ["showing", "editable"],
                                         "within": {"role": "scroll pane", "states": ["showing"], "nth": 1}})
    lorem_bar = W("lorem bar", "ScrollBar", {"role": "scroll bar", "states": ["showing"],
                                             "within": {"role": "scroll pane", "states": ["showing"], "nth": 1}},
                  kit=False)
    frame = W("window", "Window", {"role": "frame"})
    page2 = W("Page 2", "RadioButton", {"role": "radio button", "name": "Page 2"})
    page3 = W("Page 3", "RadioButton", {"role": "radio button", "name": "Page 3"})

    # Page 1.
    await m.toggle(check)
    await m.toggle(check, how="pointer")
    await m.focus(check)
    await m.screenshot(check)
    for how in ("action", "pointer"):
        await m.toggle(check_off, "disabled", "refuse", how)
    await m.focus(check_off, "disabled", "refuse")
    await m.toggle(toggle)
    await m.toggle(toggle, how="pointer")
    await m.toggle(toggle_off, "disabled", "refuse")
    await m.click(radio, state("checked"), op="select")
    await m.set_text(entry, "matrix")
    await m.type_text(entry, " typed")
    await m.focus(entry)
    await m.set_text(entry, "", "value selector",
                     node=lambda b: {"role": "TextInput", "value": b["w"]["text"]})
    await m.set_text(entry_off, "nope", "disabled", "refuse")
    await m.type_text(entry_off, "nope", "disabled", "refuse")
    await m.set_number(spin, 42)
    await m.step(spin, "increment")
    await m.step(spin_off, "increment", "disabled", "refuse")
    await m.set_number(slider, 70)
    await m.step(slider, "decrement")
    await m.set_number(slider_off, 20, "disabled", "refuse")
    await m.step(slider_off, "increment", "disabled", "refuse")
    await m.click(tab2, state("selected"), op="select")
    await m.click(tab2, state("selected"), op="select", how="pointer")
    dark = W("Dark Theme (in a closed menu)", "CheckBox", {"role": "check box", "name": "Dark Theme"})
    await m.toggle(dark, "closed menu", "refuse")
    await m.toggle(dark, "closed menu", "refuse", how="pointer")
    wine = W("Wine (disabled, closed)", "CheckBox", {"role": "check box", "name": "Wine"})
    await m.toggle(wine, "disabled", "refuse")
    await m.click(item_closed, named("combo", "Right"), "closed popup", "refuse", also={"combo": combo2},
                  op="select")
    await m.click(combo, shown("item"), op="expand", also={"item": item_open})
    await m.click(item_open, named("combo", "Middle"), "open popup", also={"combo": combo}, op="select")
    if "showing" in (await m.o.read(item_open.h)).get("states", []):
        await m.setup_action(combo, "press")  # close the popup the cells left open
    await m.scroll(lorem, lorem_bar)
    await m.screenshot(frame, window=True)

    # Page 2: page 1's widgets are now hidden.
    await m.click(page2, state("checked"), op="select")
    await m.toggle(check, "other page", "refuse")
    await m.toggle(check, "other page", "refuse", how="pointer")
    await m.type_text(entry, "nope", "other page", "refuse")
    await m.screenshot(check, "other page", "refuse")
    expander = W("expander", "Expander", {"role": "toggle button", "name": "Expander"})
    await m.expand(expander, "collapse")
    await m.expand(expander, "expand")
    await m.expand(expander, "expand", "already")
    insert = W("Insert (disabled)", "Button", {"role": "push button", "name": "Insert"})
    await m.click(insert, nothing_changes, "disabled", "refuse")
    await m.click(insert, nothing_changes, "disabled", "refuse", how="pointer")
    volume = W("slider Volume", "Slider", {"role": "slider", "name": "Volume", "states": ["showing"]})
    await m.set_number(volume, 0.8, tol=0.02)
    row_switch = W("row switch", "ToggleButton", {"role": "toggle button", "name": "", "states": enabled,
                                                   "within": {"role": "list box", "states": ["showing"]}})
    await m.toggle(row_switch)

    # Page 3.
    await m.click(page3, state("checked"), op="select")
    await m.set_number(volume, 0.2, "other page", "refuse", tol=0.02)
    cell = W("tree cell Charlemagne", "Cell", {"role": "table cell", "name": "Charlemagne"})
    await m.expand(cell, "collapse")
    await m.expand(cell, "expand")
    await m.expand(cell, "expand", "already")
    item = W("list row Birthdate", "ListItem", {"role": "list item", "states": ["showing"],
                                                "within": {"role": "list box", "states": ["showing"], "nth": 1},
                                                "nth": 1})
    await m.click(item, state("selected"), op="select")
    await m.click(item, state("selected"), op="select", how="pointer")
    record = W("Record", "ToggleButton", {"role": "toggle button", "name": "Record"})
    await m.toggle(record)
    await m.focus(record)
    names = W("entry page 3", "TextInput", {"role": "text", "text": "", "states": enabled + ["editable"]})
    await m.type_text(names, "Zoë 日本")
    long_list = W("long list", "ScrollView", {"role": "scroll pane", "states": ["showing"], "nth": 1})
    long_bar = W("long list bar", "ScrollBar", {"role": "scroll bar", "states": ["showing"],
                                                "within": {"role": "scroll pane", "states": ["showing"], "nth": 1}},
                 kit=False)
    await m.scroll(long_list, long_bar)


# ------------------------------------------------------------------------------------------
# GTK4: gtk4-widget-factory (GTK4 4.8 exports no `showing`/`enabled`: `sensitive` and a zero
# size say what a person can use and see)
# ------------------------------------------------------------------------------------------

async def gtk4_cells(m):
    live = {"states": ["sensitive"], "zero_size": False}
    check = W("checkbutton", "CheckBox", dict(live, role="check box", name="checkbutton", not_states=["checked"]))
    check_off = W("checkbutton (disabled)", "CheckBox", {"role": "check box", "name": "checkbutton",
                                                        "not_states": ["sensitive"], "zero_size": False})
    switch = W("switch", "Switch", dict(live, role="check box", name="GtkSwitch"))
    switch_off = W("switch (disabled)", "Switch", {"role": "check box", "name": "GtkSwitch",
                                                  "not_states": ["sensitive"], "zero_size": False})
    toggle = W("togglebutton", "ToggleButton", dict(live, role="push button", name="togglebutton",
                                                    not_states=["pressed"]))
    toggle_off = W("togglebutton (disabled)", "ToggleButton", {
        "role": "push button", "name": "togglebutton", "not_states": ["sensitive", "pressed"], "zero_size": False})
    entry = W("entry", "TextInput", dict(live, role="text", name="GtkEntry", nth=2))
    entry_off = W("entry (disabled)", "TextInput", {"role": "text", "name": "GtkEntry",
                                                    "not_states": ["sensitive"], "zero_size": False})
    spin = W("spin button", "SpinButton", dict(live, role="spin button"))
    scale = W("slider", "Slider", dict(live, role="slider", name="GtkScale"))
    scale_off = W("slider (disabled)", "Slider", {"role": "slider", "name": "GtkScale",
                                                  "not_states": ["sensitive"], "zero_size": False})
    frame = W("window", "Window", {"role": "frame"})
    await m.toggle(check)
    await m.toggle(check, how="pointer")
    await m.focus(check)
    await m.screenshot(check)
    await m.toggle(check_off, "disabled", "refuse")
    await m.toggle(check_off, "disabled", "refuse", how="pointer")
    await m.toggle(switch)
    await m.toggle(switch, how="pointer")
    await m.toggle(switch_off, "disabled", "refuse")
    await m.toggle(toggle, states=("pressed",))
    await m.toggle(toggle, how="pointer", states=("pressed",))
    await m.toggle(toggle_off, "disabled", "refuse", states=("pressed",))
    await m.set_text(entry, "matrix")
    await m.type_text(entry, " typed")
    await m.focus(entry)
    await m.set_text(entry_off, "nope", "disabled", "refuse")
    await m.type_text(entry_off, "nope", "disabled", "refuse")
    await m.set_number(spin, 42)
    await m.step(spin, "increment")
    await m.set_number(scale, 70)
    await m.step(scale, "increment")
    await m.set_number(scale_off, 20, "disabled", "refuse")
    await m.screenshot(frame, window=True)
    # Page 2 is built but hidden (zero size): a person cannot reach its widgets.
    hidden_spin = W("spin button (page 2)", "SpinButton", {"role": "spin button", "states": ["sensitive"],
                                                          "zero_size": True})
    hidden_news = W("text view (page 2)", "TextInput", {"role": "text", "name": "GtkTextView",
                                                       "zero_size": True})
    await m.type_text(hidden_news, "nope", "other page", "refuse")
    await m.focus(hidden_news, "other page", "refuse")
    await m.set_number(hidden_spin, 7, "other page", "refuse")
    tab = W("page tab", "Tab", {"role": "page tab", "name": "Tab", "not_states": ["selected"],
                                "zero_size": False})
    await m.click(tab, state("selected"), op="select")
    await m.click(tab, state("selected"), op="select", how="pointer")
    await m.click(tab, state("selected"), "already", op="select", how="pointer")
    await m.toggle(toggle_off, "disabled", "refuse", how="pointer", states=("pressed",))
    await m.focus(scale)
    await m.screenshot(scale)


# ------------------------------------------------------------------------------------------
# Qt 5: the calculator and the widget gallery
# ------------------------------------------------------------------------------------------

def display_reads(text):
    return other_field("display", "text", lambda v: (v or "").strip() == text)


async def qt_calculator_cells(m):
    display = W("display", "TextInput", {"role": "text"}, kit=False)
    also = {"display": display}
    keys = {k: W(f"key {k}", "Button", {"role": "push button", "name": k}) for k in "67×=" }
    keys["Clear"] = W("key Clear All", "Button", {"role": "push button", "name": "Clear All"})
    await m.click(keys["6"], display_reads("6"), also=also)
    await m.kit.call("invoke_action", {"node": (await m.resolve(keys["×"])).ref, "action": "click"})
    await m.click(keys["7"], display_reads("7"), also=also)
    await m.click(keys["="], display_reads("42"), also=also)
    await m.click(keys["Clear"], display_reads("0"), also=also)
    await m.click(keys["7"], display_reads("7"), also=also, how="pointer")
    await m.focus(keys["6"])
    await m.focus(W("display (focus)", "TextInput", {"role": "text"}))
    # Read-only (no `editable`), and the example takes no keys: a person types nothing there.
    await m.type_text(W("display (type)", "TextInput", {"role": "text"}), "5", "read-only", "refuse")
    await m.screenshot(keys["="])
    await m.screenshot(W("window", "Window", {"role": "filler", "name": "Calculator"}), window=True)


async def qt_gallery_cells(m):
    en = ["enabled", "showing"]
    disable = W("Disable widgets", "CheckBox", {"role": "check box", "name": "Disable widgets"})
    tri = W("Tri-state check box", "CheckBox", {"role": "check box", "name": "Tri-state check box"})
    togglepb = W("Toggle Push Button", "CheckBox", {"role": "check box", "name": "Toggle Push Button"})
    radio = W("Radio button 2", "RadioButton", {"role": "radio button", "name": "Radio button 2"})
    spin = W("spin box", "SpinButton", {"role": "spin button", "name": "Simple Input Widgets", "nth": 0})
    slider = W("slider", "Slider", {"role": "slider", "name": "Simple Input Widgets"})
    dial = W("dial", "Dial", {"role": "dial", "name": "Simple Input Widgets"}, kit_role="Slider")
    password = W("line edit", "PasswordInput", {"role": "password text"})
    style = W("combo box", "ComboBox", {"role": "combo box", "name": "Fusion"})
    style_item = W("combo item Windows", "ListItem", {"role": "list item", "name": "Windows",
                                                      "within": {"role": "combo box", "name": "Fusion"}})
    tab_table = W("tab Table", "Tab", {"role": "page tab", "name": "Table"})
    table_view = W("table view", "Table", {"role": "table"}, kit=False)
    tab_list = W("tab List", "Tab", {"role": "page tab", "name": "List"})
    tree_cell = W("tree cell /", "Cell", {"role": "table cell", "name": "/"})
    text_edit = W("text edit", "TextInput", {"role": "text", "states": en})
    plain_edit = W("plain text edit (hidden)", "TextInput", {"role": "text", "not_states": ["showing"]},
                   hidden_index=0)
    frame = W("window", "Dialog", {"role": "dialog"})

    await m.toggle(tri)
    await m.toggle(tri, how="pointer")
    await m.toggle(togglepb)
    await m.focus(togglepb)
    await m.click(radio, state("checked"), op="select")
    await m.set_number(spin, 42)
    await m.step(spin, "increment")
    await m.set_number(slider, 70)
    await m.step(slider, "decrement")
    await m.set_number(dial, 60)
    await m.focus(password)
    await m.expand(tree_cell, "expand")
    await m.expand(tree_cell, "collapse")
    await m.type_text(plain_edit, "nope", "other page", "refuse")
    await m.screenshot(slider)
    await m.screenshot(frame, window=True)
    await m.set_text(text_edit, "Twinkle, matrix")
    await m.type_text(text_edit, "typed ")
    await m.focus(text_edit)
    await m.click(tab_table, on_screen("view"), op="select", also={"view": table_view})
    await m.toggle(tree_cell, "other page", "refuse", states=("expanded",))
    await m.click(tab_list, on_screen("view", False), op="select", also={"view": table_view})
    await m.click(tab_table, on_screen("view"), op="select", also={"view": table_view}, how="pointer")
    await m.click(style_item, named("combo", "Windows"), "closed popup", "refuse", also={"combo": style},
                  op="select")

    # Everything but the switch disabled: a person can use none of it.
    await m.toggle(disable)
    await asyncio.sleep(0.3)
    await m.toggle(tri, "disabled", "refuse")
    await m.toggle(tri, "disabled", "refuse", how="pointer")
    await m.set_number(spin, 10, "disabled", "refuse")
    await m.set_number(slider, 10, "disabled", "refuse")
    await m.step(slider, "increment", "disabled", "refuse")
    await m.type_text(text_edit, "nope", "disabled", "refuse")
    await m.set_text(text_edit, "nope", "disabled", "refuse")
    await m.focus(password, "disabled", "refuse")
    await m.click(radio, state("checked"), "disabled", "refuse", op="select")
    await m.toggle(disable)


def qt(path):
    return lambda _extra: [f"{QT}/{path}"]


APPS = {
    "gtk3": {"display": 141, "argv": lambda _e: ["gtk3-widget-factory"], "cells": gtk3_cells,
             "package": "gtk-3-examples"},
    "gtk4": {"display": 142, "argv": lambda _e: ["gtk4-widget-factory"], "cells": gtk4_cells,
             "package": "gtk-4-examples", "settle": 1.0},
    "qt5-calculator": {"display": 143, "argv": qt("widgets/calculator/calculator"),
                       "cells": qt_calculator_cells, "package": "qtbase5-examples"},
    "qt5-gallery": {"display": 144, "argv": qt("gallery/gallery"), "cells": qt_gallery_cells,
                    "package": "qtbase5-examples"},
    "zenity": {"display": 145, "run": zenity_run, "package": "zenity"},
    "eframe": {"display": 146, "argv": lambda e: [e], "cells": eframe_cells, "package": "-"},
    "calc": {"display": 147, "argv": lambda _e: ["localc", "--norestore"], "by_name": "soffice",
             "cells": calc_cells, "package": "libreoffice-calc libreoffice-gtk3", "timeout": 90, "prepare": calc_prepare, "call_timeout": 10},
}

# Apps beyond the first seven, each module its own: KDE and Java, web content, editors.
from atspi_matrix_kde_java import APPS as KDE_JAVA  # noqa: E402
from atspi_matrix_web import APPS as WEB  # noqa: E402
from atspi_matrix_editors import APPS as EDITORS  # noqa: E402

APPS.update(KDE_JAVA)
APPS.update(WEB)
APPS.update(EDITORS)
