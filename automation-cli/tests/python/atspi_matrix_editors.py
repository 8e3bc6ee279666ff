"""The matrix's editors (see atspi_matrix.py): LibreOffice Writer, mousepad (GTK 3) and GNOME
Text Editor (GTK 4). What a person sees change is read by pyatspi (`atspi_oracle.py`), and a
saved document by reading the file the app wrote."""

import asyncio
import os
import shutil
import time

from atspi_matrix_lib import (Unresolved, Widget as W, brief, close, kit_bounds, log, other_field,
                              other_state, state, zero)

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                        "editors")


# ------------------------------------------------------------------------------------------
# Shared helpers
# ------------------------------------------------------------------------------------------

def dialogs_placed(m):
    """The kit's bounds are screen extents made relative to the main window; a dialog that
    sits elsewhere on the screen (no window manager: GTK centres it on its parent) has window
    coordinates of its own, which the library's matching compares. Match those by their
    screen extents, and a node whose role and label are unique by those alone."""
    orig = m.kit_ref

    async def kit_ref(w, read):
        try:
            return await orig(w, read)
        except Unresolved as first:
            sel = {"role": w.kit_role}
            label = w.label if w.label is not None else (read.get("name") or None)
            if label is not None:
                sel["label"] = label
            found = await m.kit.call("find_node", sel)
            count = found.data.get("count", 0) if found.ok else 0
            cands = []
            for i in range(min(count, 60)):
                rr = found if (i == 0 and count == 1) else await m.kit.call("find_node", dict(sel, nth=i))
                if rr.ok and rr.data.get("node"):
                    cands.append((rr.data["node"], kit_bounds(rr.data.get("record"))))
            scr = read.get("screen")
            origin = ((m.window or {}).get("screen") or [0, 0])[:2]
            if not zero(scr):
                rel = [scr[0] - origin[0], scr[1] - origin[1], scr[2], scr[3]]
                for ref, b in cands:
                    if close(b, rel):
                        return ref
            if label is not None and len(cands) == 1:
                return cands[0][0]
            raise first
    m.kit_ref = kit_ref


def windows_now(m):
    r = m.o.q_sync(cmd="windows")
    return [w.get("name") or "" for w in r.get("all", []) if "showing" in w.get("states", [])
            or "visible" in w.get("states", [])]


def window_judge(m, title, want=True):
    """A judge (and the hook that reads the before): a window called `title` is (or is no
    longer) among the app's windows."""
    seen = {}

    async def before():
        seen["b"] = await asyncio.to_thread(windows_now, m)

    def judge(_b, _a, _r):
        now = windows_now(m)
        has = any(title in n for n in now) == want
        had = any(title in n for n in seen.get("b", [])) == want
        return has, has and not had
    return judge, before


def appears(m, spec, want=True):
    """A judge (and its hook): an object matching `spec` (showing) is there (`want`), or gone."""
    seen = {}
    spec = dict(spec, states=list(spec.get("states", [])) + ["showing"])

    def there():
        return bool(m.o.q_sync(cmd="find", spec=spec).get("ok"))

    async def before():
        seen["b"] = await asyncio.to_thread(there)

    def judge(_b, _a, _r):
        now = there() == want
        return now, now and (seen.get("b") != want)
    return judge, before


async def until(m, w, pred, timeout=3.0):
    """Set-up: wait (as a person would) until the reader sees `pred` of the widget."""
    await m.resolve(w, kit=False)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred(await m.o.read(w.h)):
            return True
        await asyncio.sleep(0.1)
    return False


def file_judge(path, expected):
    """A judge (and its hook): the file at `path` holds `expected()` (the text the editor
    showed before the op), and did not before. The file is the reader here."""
    seen = {}

    def content():
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except OSError:
            return None

    async def before():
        seen["b"] = content()
        seen["want"] = expected()

    def judge(_b, _a, _r):
        now = content()
        want = seen.get("want")
        holds = now is not None and want is not None and now.rstrip("\n") == want.rstrip("\n")
        was = seen.get("b") is not None and seen["b"].rstrip("\n") == (want or "").rstrip("\n")
        return holds, holds and not was
    return judge, before


def nothing_changes(b, a, _r):
    """For a widget a person cannot use: any change of what the reader sees counts."""
    ch = any(brief(a[k]) != brief(b[k]) for k in a)
    return False, ch


def text_is(key, pred):
    return other_field(key, "text", lambda v: pred(v or ""))


async def setup_key(m, key, **mods):
    """Set-up, never judged: a key press through the kit (closing a menu with Escape)."""
    await m.kit.call("inject_key", dict({"key": key}, **mods))
    await asyncio.sleep(0.3)


# ------------------------------------------------------------------------------------------
# mousepad 0.5 (GTK 3): its menu items carry six trailing spaces in their names, and its
# check menu items (Word Wrap, Toolbar…) expose no `checked` state: what they change is read
# ------------------------------------------------------------------------------------------

SP = "      "


def mp_item(name, **kw):
    return W(f"menu item {name}", "MenuItem", dict({"role": "menu item", "name": name + SP}, **kw))


async def mousepad_cells(m):
    dialogs_placed(m)
    saved = os.path.join(os.environ["HOME"], "mp_saved.txt")
    menu = {n: W(f"menu {n}", "Menu", {"role": "menu", "name": n})
            for n in ("File", "Edit", "Search", "View", "Document", "Help")}
    doc = W("text view", "TextInput", {"role": "text", "states": ["editable"],
                                        "within": {"role": "page tab list"}})
    hbar = W("text view's horizontal bar", "ScrollBar", {"role": "scroll bar", "within": {"role": "page tab list"}},
             kit=False)
    vbar = W("text view's vertical bar", "ScrollBar", {"role": "scroll bar", "within": {"role": "page tab list"},
                                                       "nth": 1}, kit=False)
    toolbar = W("tool bar", "Toolbar", {"role": "tool bar"}, kit=False)
    tabs = W("tab list", "TabList", {"role": "page tab list"}, kit=False)
    undo_item, cut_item, save_as_item = mp_item("Undo"), mp_item("Cut"), mp_item("Save As...")
    tb = {n: W(f"tool button {n}", "Button", {"role": "push button", "name": n, "within": {"role": "tool bar"}})
          for n in ("Undo", "Redo", "Cut", "Paste", "Reload")}
    doc_text = lambda k="doc": {k: doc}  # noqa: E731

    # A fresh, empty document: nothing to undo, nothing to cut.
    await m.click(menu["File"], other_state("item", "showing"), op="click", also={"item": save_as_item})
    await setup_key(m, "Escape")
    await m.click(menu["Edit"], other_state("item", "showing"), also={"item": undo_item})
    await m.click(undo_item, nothing_changes, "disabled", "refuse", also=doc_text())
    await m.click(undo_item, nothing_changes, "disabled", "refuse", also=doc_text(), how="pointer")
    await m.click(cut_item, nothing_changes, "disabled", "refuse", also=doc_text())
    await setup_key(m, "Escape")
    # View ▸ Toolbar shows the tool bar (the item's own state says nothing).
    await m.setup_action(menu["View"], "click")
    await m.click(mp_item("Toolbar"), other_state("bar", "showing"), "check item", also={"bar": toolbar})
    await m.click(tb["Undo"], nothing_changes, "disabled", "refuse", also=doc_text())
    await m.click(tb["Undo"], nothing_changes, "disabled", "refuse", also=doc_text(), how="pointer")
    await m.click(tb["Reload"], nothing_changes, "disabled (unsaved)", "refuse", also=doc_text())

    # Typing, undo and redo.
    await m.type_text(doc, "Hello mousepad")
    await m.click(tb["Undo"], text_is("doc", lambda t: "Hello mousepad" not in t), also=doc_text())
    await m.click(tb["Redo"], text_is("doc", lambda t: "Hello mousepad" in t), also=doc_text())
    await m.focus(doc)
    await m.set_text(doc, "Alpha beta gamma Beta")
    await m.type_text(doc, " Zoë 日本")
    await m.setup_action(menu["Edit"], "click")
    await m.click(mp_item("Select All"), other_state("cut", "sensitive"), also={"cut": tb["Cut"]})
    await m.click(tb["Cut"], text_is("doc", lambda t: t == ""), also=doc_text())
    await m.click(tb["Paste"], text_is("doc", lambda t: t.startswith("Alpha beta")), also=doc_text(),
                  how="pointer")

    # Word wrap: a line wider than the view has a horizontal scroll bar; wrapped, none.
    await m.set_text(doc, "word " * 200)
    await m.setup_action(menu["Document"], "click")
    await m.click(mp_item("Word Wrap"), other_state("bar", "showing", False), "check item",
                  also={"bar": hbar})
    await m.setup_action(menu["Document"], "click")
    await m.click(mp_item("Word Wrap"), other_state("bar", "showing"), "check item", also={"bar": hbar},
                  how="pointer")
    await setup_key(m, "Escape")
    await m.set_text(doc, "\n".join(f"line {i}" for i in range(1, 201)))
    await m.scroll(doc, vbar)
    await m.screenshot(doc)
    await m.screenshot(W("window", "Window", {"role": "frame"}), window=True)

    # The find bar.
    await m.set_text(doc, "Alpha beta gamma Beta")
    find_bar = W("find bar", "Toolbar", {"role": "tool bar", "nth": 1}, kit=False)
    in_bar = {"role": "tool bar", "nth": 1}
    search = W("find bar entry", "TextInput", {"role": "text", "within": in_bar})
    status = W("find bar status", "Label", {"role": "label", "within": in_bar}, kit=False)
    match_case = W("find bar Match case", "CheckBox", {"role": "check box", "name": "Match case", "within": in_bar})
    await m.setup_action(menu["Search"], "click")
    judge, hook = appears(m, {"role": "tool bar", "nth": 1})
    await m.cell(mp_item("Find"), "click", "invoke_action", {"node": "REF", "action": "click"}, judge,
                 "shows the find bar", before_hook=hook)
    if not (await m.o.q(cmd="find", spec={"role": "tool bar", "nth": 1, "states": ["showing"]})).get("ok"):
        await setup_key(m, "f", ctrl=True)  # the item's shortcut, for the cells below
    await m.type_text(search, "beta")
    await m.focus(search)

    def recount(b, a, _r):
        ch = a["w"].get("states", []) != b["w"].get("states", []) and a["status"].get("name") != b["status"].get(
            "name")
        return ch, ch
    await m.cell(match_case, "toggle", "invoke_action", {"node": "REF", "action": "click"}, recount,
                 also={"status": status})
    await m.cell(match_case, "pointer", "inject_pointer", {"node": "REF"}, recount, also={"status": status})
    await m.click(W("find bar Close", "Button", {"role": "push button", "name": "Close", "within": in_bar}),
                  other_state("bar", "showing", False), also={"bar": find_bar})

    # Find and Replace (a dialog that does not block).
    fr = {"role": "dialog", "name": "Find and Replace"}
    judge, hook = window_judge(m, "Find and Replace")
    await m.setup_action(menu["Search"], "click")
    await m.cell(mp_item("Find and Replace..."), "click", "invoke_action", {"node": "REF", "action": "click"},
                 judge, "opens a dialog", before_hook=hook)
    fr_search = W("F&R Search for", "TextInput", {"role": "text", "within": fr})
    fr_replace = W("F&R Replace with", "TextInput", {"role": "text", "within": fr, "nth": 1})
    fr_find = W("F&R Find", "Button", {"role": "push button", "name": "Find", "within": fr})
    fr_scope = W("F&R scope combo", "ComboBox", {"role": "combo box", "name": "Document", "within": fr})
    fr_all = W("F&R Replace all in", "CheckBox", {"role": "check box", "name": "Replace all in:", "within": fr})
    fr_dir = W("F&R direction combo", "ComboBox", {"role": "combo box", "name": "Down", "within": fr})
    fr_up = W("F&R direction item Up", "MenuItem", {"role": "menu item", "name": "Up",
                                                    "within": {"role": "combo box", "name": "Down"}})
    await m.click(fr_find, nothing_changes, "disabled", "refuse", also=doc_text())
    await m.click(fr_scope, nothing_changes, "disabled", "refuse", op="expand")
    await m.set_text(fr_search, "beta")
    await m.set_text(fr_replace, "BETA")
    await m.toggle(fr_all)
    replace_all = W("F&R Replace All", "Button", {"role": "push button", "name": "Replace All", "within": fr})
    await m.click(replace_all, text_is("doc", lambda t: "BETA" in t and "beta" not in t), also=doc_text())
    await m.click(fr_dir, other_state("item", "showing"), op="expand", also={"item": fr_up})
    await m.click(fr_up, other_field("combo", "name", lambda v: v == "Up"), "open popup", also={"combo": fr_dir},
                  op="select")
    judge, hook = window_judge(m, "Find and Replace", want=False)
    await m.cell(W("F&R Close", "Button", {"role": "push button", "name": "Close", "within": fr}), "click",
                 "invoke_action", {"node": "REF", "action": "click"}, judge, "closes the dialog", before_hook=hook)

    # A second document: a tab each.
    await m.setup_action(menu["File"], "click")
    await m.click(mp_item("New"), other_field("tabs", "children", lambda n: (n or 0) >= 2), also={"tabs": tabs})
    first_tab = W("page tab 1", "Tab", {"role": "page tab", "within": {"role": "page tab list"}})
    await m.click(first_tab, state("selected"), op="select")

    # Preferences: a dialog's check boxes, spin buttons, tabs and combo.
    pd = {"role": "dialog", "name": "Mousepad Preferences"}
    judge, hook = window_judge(m, "Mousepad Preferences")
    await m.setup_action(menu["Edit"], "click")
    await m.cell(mp_item("Preferences..."), "click", "invoke_action", {"node": "REF", "action": "click"},
                 judge, "opens a dialog", before_hook=hook)
    margin = W("prefs Long line margin", "CheckBox", {"role": "check box", "name": "Long line margin at column:",
                                                      "within": pd})
    margin_spin = W("prefs margin column", "SpinButton", {"role": "spin button", "within": pd})
    await m.set_number(margin_spin, 100, "disabled", "refuse")
    await m.step(margin_spin, "increment", "disabled", "refuse")
    await m.toggle(margin)
    await m.set_number(margin_spin, 100)
    await m.step(margin_spin, "increment")
    await m.toggle(W("prefs Show line numbers", "CheckBox", {"role": "check box", "name": "Show line numbers",
                                                             "within": pd}), how="pointer")
    await m.click(W("prefs font button", "Button", {"role": "push button", "name": "Monospace Regular", "within": pd}),
                  nothing_changes, "disabled", "refuse")
    scheme = W("prefs color scheme combo", "ComboBox", {"role": "combo box", "name": "none", "within": pd})
    cobalt = W("prefs scheme item Cobalt", "MenuItem", {"role": "menu item", "name": "Cobalt",
                                                        "within": {"role": "combo box", "name": "none"}})
    await m.click(scheme, other_state("item", "showing"), op="expand", also={"item": cobalt})
    await m.click(cobalt, other_field("combo", "name", lambda v: v == "cobalt"), "open popup",
                  also={"combo": scheme}, op="select")
    editor_tab = W("prefs tab Editor", "Tab", {"role": "page tab", "name": "Editor", "within": pd})
    await m.click(editor_tab, state("selected"), op="select")
    await m.toggle(W("prefs Wrap long lines", "CheckBox", {"role": "check box", "name": "Wrap long lines",
                                                           "within": pd}), "other page", "refuse")
    tab_width = W("prefs tab width", "SpinButton", {"role": "spin button", "within": pd, "nth": 1})
    await m.set_number(tab_width, 4)
    await setup_key(m, "Escape")

    # About: a dialog of its own.
    judge, hook = window_judge(m, "About")
    await m.setup_action(menu["Help"], "click")
    await m.cell(mp_item("About"), "click", "invoke_action", {"node": "REF", "action": "click"}, judge,
                 "opens a dialog", before_hook=hook)
    judge, hook = window_judge(m, "About", want=False)
    await m.cell(W("About Close", "Button", {"role": "push button", "name": "Close",
                                             "within": {"role": "dialog", "name_contains": "About"}}),
                 "click", "invoke_action", {"node": "REF", "action": "click"}, judge, "closes the dialog",
                 before_hook=hook)

    # Save As, as a person opens it: a click on the item in the open File menu.
    await m.set_text(doc, "Saved by the matrix\nline two")
    judge, hook = window_judge(m, "Save As")
    await m.setup_action(menu["File"], "click")
    await m.cell(save_as_item, "pointer", "inject_pointer", {"node": "REF"}, judge, "opens a dialog",
                 before_hook=hook)
    if not any("Save As" in n for n in await asyncio.to_thread(windows_now, m)):
        await setup_key(m, "Escape")
        await setup_key(m, "s", ctrl=True, shift=True)  # the item's shortcut
        await asyncio.sleep(0.5)
    chooser = {"role": "file chooser", "name": "Save As"}
    name = W("Save As Name", "TextInput", {"role": "text", "within": chooser})
    save = W("Save As Save", "Button", {"role": "push button", "name": "Save", "within": chooser})
    await m.click(save, nothing_changes, "disabled", "refuse")
    await m.set_text(name, saved)
    await until(m, save, lambda r: "sensitive" in r.get("states", []))  # the chooser checks the name first
    text_before = (await m.o.read((await m.resolve(doc, kit=False)).h)).get("text")
    judge, hook = file_judge(saved, lambda: text_before)
    await m.cell(save, "click", "invoke_action", {"node": "REF", "action": "click"}, judge, "writes the file",
                 before_hook=hook)
    # Saved once, File ▸ Save writes again with no dialog.
    await m.type_text(doc, " and more")
    text_more = lambda: (m.o.q_sync(cmd="read", h=doc.h).get("read") or {}).get("text")  # noqa: E731
    judge, hook = file_judge(saved, text_more)
    await m.setup_action(menu["File"], "click")
    await m.cell(mp_item("Save"), "click", "invoke_action", {"node": "REF", "action": "click"}, judge,
                 "writes the file", before_hook=hook)
    await setup_key(m, "Escape")

    # Last, since it can leave the kit waiting: Save As by the item's action (GTK runs the
    # modal dialog inside the D-Bus call that asked for it; a person's click opens it cleanly).
    judge, hook = window_judge(m, "Save As")
    await m.setup_action(menu["File"], "click")
    await m.cell(save_as_item, "click", "invoke_action", {"node": "REF", "action": "click"}, judge,
                 "opens a dialog", before_hook=hook)


APPS = {
    "mousepad": {"display": 156, "argv": lambda _e: ["mousepad", "--disable-server"], "cells": mousepad_cells,
                 "package": "mousepad", "call_timeout": 12},
}
