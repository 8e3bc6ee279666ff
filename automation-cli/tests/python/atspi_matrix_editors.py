"""The matrix's editors (see atspi_matrix.py): LibreOffice Writer, mousepad (GTK 3) and GNOME
Text Editor (GTK 4). What a person sees change is read by pyatspi (`atspi_oracle.py`), and a
saved document by reading the file the app wrote."""

import asyncio
import os
import shutil
import time

from atspi_matrix_lib import (Unresolved, Widget as W, brief, close, kit_bounds, other_field, other_state,
                              state, zero)

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
            cands = []
            if w.kit_within is not None:  # the container's subtree: nodes with no label to look for
                outer = await m.resolve(w.kit_within)
                snap = await m.kit.call("snapshot_tree", {"root": outer.ref, "format": "json",
                                                          "max_nodes": 3000})
                for n in snap.data.get("nodes", []) if snap.ok else []:
                    if n.get("role") == sel["role"] and (label is None or n.get("label") == label):
                        cands.append((n["id"], kit_bounds(n)))
            else:
                found = await m.kit.call("find_node", sel)
                count = found.data.get("count", 0) if found.ok else 0
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


def windows_now(m, role=None):
    r = m.o.q_sync(cmd="windows")
    return [w.get("name") or "" for w in r.get("all", []) if ("showing" in w.get("states", [])
            or "visible" in w.get("states", [])) and (role is None or w.get("role") == role)]


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


def popup_judge(m, want=True):
    """A judge (and its hook): a popup (a top-level `window`, as LibreOffice's drop-down lists
    are) opened (or closed)."""
    seen = {}

    def count():
        return len(windows_now(m, "window"))

    async def before():
        seen["b"] = await asyncio.to_thread(count)

    def judge(_b, _a, _r):
        n = count()
        ok = (n > seen.get("b", 0)) if want else (n < seen.get("b", 0))
        return ok, ok
    return judge, before


def appears(m, spec, want=True, showing=True):
    """A judge (and its hook): an object matching `spec` (showing; for GTK 4, which says
    `showing` of windows only: of a size) is there (`want`), or gone."""
    seen = {}
    spec = dict(spec, states=list(spec.get("states", [])) + ["showing"]) if showing else dict(spec, zero_size=False)

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


async def wait_find(m, spec, timeout=6.0):
    """Set-up: wait until the reader finds `spec` (a dialog being built)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (await m.o.q(cmd="find", spec=spec)).get("ok"):
            return True
        await asyncio.sleep(0.3)
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


def became(judge):
    """A judge that holds only when what it checks arrived with this op (an earlier cell's
    failure must not leave the state this one asks for)."""
    def j(b, a, r):
        holds, changed = judge(b, a, r)
        return holds and changed, changed
    return j


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
    await m.click(tb["Redo"], became(text_is("doc", lambda t: "Hello mousepad" in t)), also=doc_text())
    await m.focus(doc)
    await m.set_text(doc, "Alpha beta gamma Beta")
    await m.type_text(doc, " Zoë 日本")
    await m.setup_action(menu["Edit"], "click")
    await m.click(mp_item("Select All"), other_state("cut", "sensitive"), also={"cut": tb["Cut"]})
    await m.click(tb["Cut"], text_is("doc", lambda t: t == ""), also=doc_text())
    await m.click(tb["Paste"], became(text_is("doc", lambda t: t.startswith("Alpha beta"))), also=doc_text(),
                  how="pointer")

    # Word wrap: a line wider than the view has a horizontal scroll bar; wrapped, none.
    await m.set_text(doc, "word " * 200)
    await m.setup_action(menu["Document"], "click")
    await m.click(mp_item("Word Wrap"), became(other_state("bar", "showing", False)), "check item",
                  also={"bar": hbar})
    await m.setup_action(menu["Document"], "click")
    await m.click(mp_item("Word Wrap"), became(other_state("bar", "showing")), "check item", also={"bar": hbar},
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

    # Find and Replace (a dialog that does not block), over a document long enough to scroll.
    await m.set_text(doc, "Alpha beta gamma Beta\n" + "\n".join(f"line {i}" for i in range(1, 201)))
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
    # The dialog covers the middle of the text view; the rest of it shows, and scrolls under a
    # person's wheel (up: Replace All left the view at the document's end).
    await m.scroll(doc, vbar, dy=-3, variant="partly covered")
    await m.click(fr_dir, other_state("item", "showing"), op="expand", also={"item": fr_up})
    await m.click(fr_up, other_field("combo", "name", lambda v: v == "Up"), "open popup", also={"combo": fr_dir},
                  op="select")
    judge, hook = window_judge(m, "Find and Replace", want=False)
    await m.cell(W("F&R Close", "Button", {"role": "push button", "name": "Close", "within": fr}), "click",
                 "invoke_action", {"node": "REF", "action": "click"}, judge, "closes the dialog", before_hook=hook)

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

    # A second document: a tab each.
    await m.setup_action(menu["File"], "click")
    await m.click(mp_item("New"), other_field("tabs", "children", lambda n: (n or 0) >= 2), also={"tabs": tabs})
    first_tab = W("page tab 1", "Tab", {"role": "page tab", "within": {"role": "page tab list"}})
    await m.click(first_tab, state("selected"), op="select")

    # Last, since it can leave the kit waiting: Save As by the item's action (GTK runs the
    # modal dialog inside the D-Bus call that asked for it; a person's click opens it cleanly).
    judge, hook = window_judge(m, "Save As")
    await m.setup_action(menu["File"], "click")
    await m.cell(save_as_item, "click", "invoke_action", {"node": "REF", "action": "click"}, judge,
                 "opens a dialog", before_hook=hook)


# ------------------------------------------------------------------------------------------
# LibreOffice Writer 7.4 (VCL's GTK 3 plug-in): the document's text lives on its paragraphs
# (only those laid out on screen are in the tree); formatting is read as the text's attributes
# (bold is `weight:600`); the GTK menu bar is the one a person sees (a VCL copy of it has no
# size); toolbar toggles say `checked`
# ------------------------------------------------------------------------------------------

def format_judge(m, para, key, on, want=None):
    """A judge (and its hook) for a formatting toggle (`w`, a toolbar button): it flips its
    `checked` state, and the text's attribute `key` (at offset 1 of `para`) turns to `on` when
    it is checked and away from it when not. `want`: the state asked for (set_value)."""
    seen = {}

    def attr():
        r = m.o.q_sync(cmd="text_attributes", h=para.h, offset=1)
        return (r.get("attrs") or {}).get(key) if r.get("ok") else None

    async def before():
        seen["b"] = await asyncio.to_thread(attr)

    def judge(b, a, _r):
        was = "checked" in b["w"].get("states", [])
        now = "checked" in a["w"].get("states", [])
        val = attr()
        text_changed = val != seen.get("b")
        target = (not was) if want is None else want
        holds = now == target and (val == on) == target and (text_changed or was == target)
        return holds, now != was or text_changed
    return judge, before


def attr_is(m, para, key, pred):
    """A judge (and its hook): the text's attribute `key` satisfies `pred` now, not before."""
    seen = {}

    def attr():
        r = m.o.q_sync(cmd="text_attributes", h=para.h, offset=1)
        return (r.get("attrs") or {}).get(key) if r.get("ok") else None

    async def before():
        seen["b"] = await asyncio.to_thread(attr)

    def judge(_b, _a, _r):
        val = attr()
        return bool(pred(val)), bool(pred(val)) and not pred(seen.get("b"))
    return judge, before


async def writer_prepare(oracle):
    """Wait for the document's paragraphs (Writer shows its window before it lays them out)."""
    deadline = time.monotonic() + 90
    while True:
        p = await oracle.q(cmd="find", spec={"role": "paragraph", "text": "Paragraph 1", "states": ["showing"]})
        if p.get("ok"):
            return {}
        if time.monotonic() > deadline:
            raise RuntimeError("no paragraphs after 90 s")
        await asyncio.sleep(0.5)


def writer_argv(_extra):
    doc = os.path.join(os.environ["HOME"], "paragraphs.fodt")
    shutil.copy(os.path.join(FIXTURES, "paragraphs.fodt"), doc)  # its lock file goes beside it
    return ["soffice", "--writer", "--norestore", "--nologo", "--nofirststartwizard", doc]


async def writer_cells(m):
    dialogs_placed(m)
    bar = {"role": "menu bar"}  # the GTK one comes first; the VCL copy has no size
    menu = {n: W(f"menu {n}", "Menu", {"role": "menu", "name": n, "within": bar}) for n in ("Edit", "Format", "View")}

    def item(name, kind="MenuItem", role="menu item"):
        return W(f"menu item {name}", kind, {"role": role, "name": name, "within": bar}, kit_role=kind)

    std = {"role": "tool bar", "name": "Standard"}
    fmt = {"role": "tool bar", "name": "Formatting"}

    def tool(name, role="push button", within=std, **kw):
        return W(f"tool {name}", "Button", dict({"role": role, "name": name, "within": within}, **kw))

    undo, redo, paste, cut = tool("Undo"), tool("Redo"), tool("Paste"), tool("Cut")
    spacing_off = W("tool Decrease paragraph spacing", "Button",
                    {"role": "push button", "name": "Decrease", "within": fmt, "states": ["showing"],
                     "not_states": ["enabled"]})
    bold, italic = tool("Bold", "toggle button", fmt), tool("Italic", "toggle button", fmt)
    underline = tool("Underline", "push button", fmt)
    marks = tool("Formatting Marks", "toggle button")
    doc = W("document", "Document", {"role": "document text"}, kit_role="Document")
    vbar = W("document's scroll bar", "ScrollBar", {"role": "scroll bar", "name": "Vertical scroll bar"}, kit=False)
    p1 = W("paragraph 1", "Paragraph", {"role": "paragraph", "text": "Paragraph 1"})
    p2 = W("paragraph 2", "Paragraph", {"role": "paragraph", "text": "Paragraph 2"})
    p3 = W("paragraph 3", "Paragraph", {"role": "paragraph", "text": "Paragraph 3"})
    p20 = W("paragraph 20", "Paragraph", {"role": "paragraph", "text": "Paragraph 20"})
    para = {"p": p1}

    # Nothing done yet: nothing to undo, nothing selected, an empty clipboard.
    await m.click(undo, nothing_changes, "disabled", "refuse", also=para)
    await m.click(undo, nothing_changes, "disabled", "refuse", also=para, how="pointer")
    await m.click(paste, nothing_changes, "disabled", "refuse", also=para)
    await m.click(cut, nothing_changes, "disabled", "refuse", also=para, how="pointer")
    await m.click(spacing_off, nothing_changes, "disabled", "refuse", also=para)
    await m.click(menu["Edit"], other_state("item", "showing"), also={"item": item("Paste")})
    await m.click(item("Undo"), nothing_changes, "disabled", "refuse", also=para)
    await setup_key(m, "Escape")

    # The document's paragraphs: a find names one, a snapshot names every one shown.
    def named_one(b, a, r):
        rec = (r.data or {}).get("record") or {}
        return (r.ok and rec.get("value") == "Paragraph 20" and "showing" in a["w"].get("states", [])), False
    await m.cell(p20, "find", "find_node", {"role": "Paragraph", "value": "Paragraph 20"}, named_one, window=0)

    def names_all(b, a, r):
        if not r.ok:
            return False, False
        shown = m.o.q_sync(cmd="find_all", spec={"role": "paragraph", "states": ["showing"],
                                                  "within": {"role": "document text"}})
        texts = [p.get("text") for p in shown.get("all", []) if p.get("text")]
        values = {n.get("value") for n in r.data.get("nodes", [])}
        return bool(texts) and all(t in values for t in texts), False
    await m.cell(doc, "snapshot", "snapshot_tree", {"root": "REF", "format": "json", "max_nodes": 400},
                 names_all, window=0)

    # Typing, undo and redo, replacing a paragraph's text.
    await m.focus(p3)
    await m.type_text(p1, "Typed ")
    sensitive = lambda r: "sensitive" in r.get("states", [])  # noqa: E731
    await until(m, undo, sensitive)  # Writer updates its toolbar a moment later
    # Writer undoes typing a word at a time (the space after "Typed" first): some of it goes.
    await m.click(undo, text_is("p", lambda t: "Typed " not in t and "Paragraph 1" in t
                                and len(t) < len("Typed Paragraph 1")), also=para)
    if not await until(m, redo, sensitive):
        await m.setup_action(undo, "press")  # undone by the toolkit, so that Redo has something to redo
        await until(m, redo, sensitive)
    await m.click(redo, became(text_is("p", lambda t: "Typed " in t)), also=para)
    await m.set_text(p2, "Replaced second paragraph")
    # Text in another script may give the paragraph a new object: the reader looks for its text.
    typed = {}

    async def p2_text():
        typed["was"] = ((await m.o.read(p2.h)) or {}).get("text", "")

    def p2_typed(_b, _a, _r):
        """The typed text is in the paragraph (wherever the caret was), the rest as it was."""
        m.o.q_sync(cmd="find_all", spec={"role": "no such role"})  # a miss walks the tree again
        shown = m.o.q_sync(cmd="find_all", spec={"role": "paragraph", "states": ["showing"]}).get("all", [])
        there = any(" Zoë 日本" in (p.get("text") or "") and (p.get("text") or "").replace(" Zoë 日本", "", 1)
                    == typed.get("was") for p in shown)
        return there, there
    await m.cell(p2, "type_text", "type_text", {"node": "REF", "text": " Zoë 日本"}, p2_typed, before_hook=p2_text)

    # Bold, italic, underline on the first paragraph's text, selected.
    await m.kit.call("focus_node", {"node": (await m.resolve(p1)).ref})
    await setup_key(m, "Home")
    await setup_key(m, "End", shift=True)
    for w, key, on in ((bold, "weight", "600"), (italic, "style", "italic"), (underline, "underline", "single")):
        for how in ("action", "pointer"):
            judge, hook = format_judge(m, p1, key, on)
            args = {"node": "REF", "action": "click"} if how == "action" else {"node": "REF"}
            await m.cell(w, "toggle" if how == "action" else "pointer",
                         "invoke_action" if how == "action" else "inject_pointer", args, judge,
                         "selected text", before_hook=hook)
    judge, hook = format_judge(m, p1, "weight", "600", want=True)
    await m.cell(bold, "set_value", "set_value", {"node": "REF", "value": 1}, judge, "selected text",
                 before_hook=hook)

    # View ▸ Formatting Marks (a check menu item) and its toolbar twin.
    await m.setup_action(menu["View"], "click")
    await m.click(item("Formatting Marks", "MenuItemCheckBox", "check menu item"), other_state("marks", "checked"),
                  "check item", also={"marks": marks})
    if (await m.o.q(cmd="find", spec={"role": "menu item", "name": "Character...", "within": bar,
                                      "states": ["showing"]})).get("ok"):
        await setup_key(m, "Escape")  # the menu is still open
    await m.toggle(marks, how="pointer")

    # Format ▸ Character…: a dialog's tabs, drop-down, check boxes, spin buttons, Cancel.
    await m.click(menu["Format"], other_state("item", "showing"), also={"item": item("Character...")},
                  how="pointer")
    judge, hook = window_judge(m, "Character")
    await m.cell(item("Character..."), "click", "invoke_action", {"node": "REF", "action": "click"}, judge,
                 "opens a dialog", before_hook=hook)
    if "Character" not in await asyncio.to_thread(windows_now, m):
        await m.setup_action(item("Character..."), "click")
        await asyncio.sleep(1.0)
    dlg = {"role": "dialog", "name": "Character"}
    dlg_w = W("Character dialog", "Dialog", dlg)
    shown = ["showing"]
    size = W("Character Size entry", "TextInput", {"role": "text", "text": "12 pt", "states": shown, "within": dlg})
    size_button = W("Character Size drop-down button", "Button", {"role": "toggle button", "name": "",
                                                                  "states": shown, "within": dlg, "nth": 1},
                    kit_within=dlg_w)
    # The Size combo a person sees: LibreOffice never shows the combo box itself, only the
    # filler that holds it with its entry and arrow (the Asian and CTL ones stay hidden).
    size_combo = W("Character Size combo", "ComboBox", {"role": "combo box", "within": dlg,
                                                        "parent_states": ["showing"], "nth": 1},
                   label="Size:", kit_at="parent")
    judge, hook = popup_judge(m)
    await m.cell(size_button, "click", "invoke_action", {"node": "REF", "action": "click"}, judge,
                 "opens the list", before_hook=hook)
    fourteen = W("Size list item 14 pt", "Cell", {"role": "table cell", "name": "14 pt", "states": shown})
    await m.click(fourteen, other_field("size", "text", lambda v: v == "14 pt"), "open list", also={"size": size},
                  op="select")
    judge, hook = popup_judge(m)
    await m.cell(size_combo, "expand", "expand", {"node": "REF"}, judge, "its list", before_hook=hook)
    if len(await asyncio.to_thread(windows_now, m, "window")):
        await setup_key(m, "Escape")
    await m.set_text(size, "18 pt")
    effects = W("Character tab Font Effects", "Tab", {"role": "page tab", "name": "Font Effects", "within": dlg})
    position = W("Character tab Position", "Tab", {"role": "page tab", "name": "Position", "within": dlg})
    await m.click(effects, state("selected"), op="select")
    await m.toggle(W("Character Shadow", "CheckBox", {"role": "check box", "name": "Shadow", "within": dlg}))
    await m.toggle(W("Character Outline", "CheckBox", {"role": "check box", "name": "Outline", "within": dlg}),
                   how="pointer")
    transparency = W("Character Transparency", "SpinButton", {"role": "spin button", "states": shown, "within": dlg},
                     label="Transparency:")
    await m.set_number(transparency, 50)
    await m.step(transparency, "increment")
    await m.set_text(size, "20 pt", "other page", "refuse")
    await m.click(position, state("selected"), op="select")
    automatic = W("Character Automatic (raise)", "CheckBox", {"role": "check box", "name": "Automatic", "within": dlg})
    relative = W("Character Relative font size", "SpinButton", {"role": "spin button", "states": shown, "within": dlg,
                                                                "text": "100%"})
    await m.toggle(automatic, "disabled", "refuse")
    await m.set_number(relative, 80, "disabled", "refuse")
    await m.click(W("Character Superscript", "RadioButton", {"role": "radio button", "name": "Superscript",
                                                             "within": dlg}), state("checked"), op="select")
    await m.set_number(relative, 80)
    judge, hook = window_judge(m, "Character", want=False)
    await m.cell(W("Character Cancel", "Button", {"role": "push button", "name": "Cancel", "within": dlg}), "click",
                 "invoke_action", {"node": "REF", "action": "click"}, judge, "closes the dialog", before_hook=hook)

    # Once more, as a person opens it: the pointer on the menu item; then OK applies the size.
    await m.setup_action(menu["Format"], "click")
    judge, hook = window_judge(m, "Character")
    await m.cell(item("Character..."), "pointer", "inject_pointer", {"node": "REF"}, judge, "opens a dialog",
                 before_hook=hook)
    if "Character" not in await asyncio.to_thread(windows_now, m):
        await m.setup_action(item("Character..."), "click")  # the menu is open
    await wait_find(m, dict(dlg, states=shown))
    # The dialog opens on the tab it was left on.
    await m.click(W("Character tab Font", "Tab", {"role": "page tab", "name": "Font", "within": dlg}),
                  state("selected"), op="select")
    font_size = {"role": "text", "states": shown, "within": dlg, "nth": 1}  # Language, Size, Style, Family
    await wait_find(m, font_size)
    size2 = W("Character Size entry (again)", "TextInput", font_size)
    await m.set_text(size2, "18 pt", "again")
    entry = {}

    async def read_entry():
        entry["size"] = ((await m.o.read(size2.h)) or {}).get("text", "").replace(" pt", "")
        await hook()
        await chook()

    closed, chook = window_judge(m, "Character", want=False)
    applied, hook = attr_is(m, p1, "size", lambda v: v == entry.get("size"))

    def ok_applies(b, a, r):
        c_holds, c_changed = closed(b, a, r)
        s_holds, s_changed = applied(b, a, r)
        return c_holds and s_holds, c_changed or s_changed
    await m.cell(W("Character OK", "Button", {"role": "push button", "name": "OK", "within": dlg}), "click",
                 "invoke_action", {"node": "REF", "action": "click"}, ok_applies, "applies the size",
                 before_hook=read_entry)

    # The document scrolls; its picture and the window's.
    await m.scroll(doc, vbar, dy=5)
    await m.screenshot(doc)
    await m.screenshot(W("window", "Window", {"role": "frame"}), window=True)


# ------------------------------------------------------------------------------------------
# GNOME Text Editor 43 (GTK 4.8, libadwaita 1.2): no `showing` but on windows (a size says what
# is on screen), popover menus whose items exist only while open, toggle buttons `pressed`,
# the file chooser a `filler`
# ------------------------------------------------------------------------------------------

def size_of(key, pred):
    """A judge: the other widget's extents satisfy `pred` (width, height) now, not before."""
    def judge(b, a, _r):
        ext = lambda r: (r.get("extents") or [0, 0, 0, 0])[2:]  # noqa: E731
        now = bool(pred(*ext(a[key])))
        return now, now and not pred(*ext(b[key]))
    return judge


async def text_editor_cells(m):
    saved = os.path.join(os.environ["HOME"], "gte_saved.txt")
    doc = W("text view", "TextInput", {"role": "text", "name": "EditorSourceView"})
    page = {"role": "filler", "name": "EditorPage"}
    vrange = W("text view's vertical range", "ScrollBar", {"role": "filler", "name": "GtkRange", "within": page,
                                                           "nth": 1}, kit=False)
    gutter = W("text view's gutter", "GenericContainer", {"role": "filler", "name": "GtkSourceGutter"}, kit=False)
    frame = W("window", "Window", {"role": "frame"})
    # The header bar's menu buttons: GTK 4 nests a button in a button; a person clicks the inner.
    menu_button = W("Menu button", "Button", {"role": "push button", "name": "Menu", "states": ["focusable"]})
    view_button = W("View button", "Button", {"role": "push button", "name": "View", "states": ["focusable"]})
    new_tab = W("New tab button", "Button", {"role": "push button", "name": "New tab (Ctrl+T)"})
    outer = {"role": "push button", "not_states": ["focusable"]}
    outer_of = {"Menu": W("Menu button (outer)", "Button", dict(outer, name="Menu"), kit=False),
                "View": W("View button (outer)", "Button", dict(outer, name="View"), kit=False)}

    async def popover(button):
        """Set-up: the button's popover open (its outer button says `expanded`), and the
        reader's picture of the tree fresh: GTK 4 builds a popover's items anew each time."""
        out = outer_of[button.spec["name"]]
        expanded = lambda r: "expanded" in r.get("states", [])  # noqa: E731
        if not expanded(await m.o.read((await m.resolve(out, kit=False)).h)):
            await m.kit.call("invoke_action", {"node": (await m.resolve(button)).ref, "action": "click"})
            await until(m, out, expanded)
            await asyncio.sleep(0.3)
        await m.o.q(cmd="find_all", spec={"role": "no such role"})  # a miss walks the tree again

    def pop(name, kind="MenuItem", role="menu item"):
        return W(f"menu item {name}", kind, {"role": role, "name": name}, kit_role=kind)

    async def frame_action(name):
        """Set-up: one of the window's actions (GTK 4 lists its GActions), when a cell did not."""
        await m.o.q(cmd="do_action", h=(await m.resolve(frame, kit=False)).h, name=name)
        await asyncio.sleep(0.5)

    # The document.
    await m.type_text(doc, "Hello GTE")
    await m.focus(doc)
    await m.set_text(doc, "Alpha beta\nGamma")
    await m.type_text(doc, " Zoë 日本")
    await m.screenshot(doc)
    await m.screenshot(frame, window=True)

    # The primary menu: a popover.
    judge, hook = appears(m, {"role": "menu item", "name": "Save As…"}, showing=False)
    await m.cell(menu_button, "click", "invoke_action", {"node": "REF", "action": "click"}, judge, "opens its popover",
                 before_hook=hook)
    await m.focus(doc, "popover open")  # the popover has the focus; a click in the text takes it back
    await popover(menu_button)
    await m.click(pop("Discard Changes"), nothing_changes, "disabled", "refuse", also={"doc": doc})

    def zoom():
        return W("zoom label", "Label", {"role": "label", "name_contains": "%", "within": {"role": "menu"}}, kit=False)
    await popover(menu_button)
    await m.click(W("Zoom in", "Button", {"role": "push button", "name": "Zoom in"}),
                  other_field("zoom", "name", lambda v: v not in (None, "100%")), also={"zoom": zoom()})
    await popover(menu_button)
    await m.click(W("Zoom out", "Button", {"role": "push button", "name": "Zoom out"}),
                  became(other_field("zoom", "name", lambda v: v == "100%")), also={"zoom": zoom()}, how="pointer")
    await popover(menu_button)
    await m.toggle(W("Dark style", "CheckBox", {"role": "check box", "name": "Dark style"}))
    await popover(menu_button)
    await m.toggle(W("Light style", "CheckBox", {"role": "check box", "name": "Light style"}), how="pointer")

    # Save As: the GTK 4 file chooser, its name, Save → the file.
    await popover(menu_button)
    judge, hook = window_judge(m, "Save As")
    await m.cell(pop("Save As…"), "click", "invoke_action", {"node": "REF", "action": "click"}, judge,
                 "opens a dialog", before_hook=hook)
    if "Save As" not in await asyncio.to_thread(windows_now, m):
        await setup_key(m, "Escape")
        await frame_action("page.save-as")
        await wait_find(m, {"role": "text", "name": "Name:"})
    name = W("Save As Name", "TextInput", {"role": "text", "name": "Name:"})
    await m.set_text(name, saved)
    text_before = (await m.o.read((await m.resolve(doc, kit=False)).h)).get("text")
    judge, hook = file_judge(saved, lambda: text_before)
    await m.cell(W("Save As Save", "Button", {"role": "push button", "name": "Save Save"}), "click", "invoke_action",
                 {"node": "REF", "action": "click"}, judge, "writes the file", before_hook=hook)
    # Again, and Cancel.
    await popover(menu_button)
    judge, hook = window_judge(m, "Save As")
    await m.cell(pop("Save As…"), "pointer", "inject_pointer", {"node": "REF"}, judge, "opens a dialog",
                 before_hook=hook)
    if "Save As" not in await asyncio.to_thread(windows_now, m):
        await setup_key(m, "Escape")
        await frame_action("page.save-as")
        await wait_find(m, {"role": "text", "name": "Name:"})
    judge, hook = window_judge(m, "Save As", want=False)
    await m.cell(W("Save As Cancel", "Button", {"role": "push button", "name": "Cancel Cancel"}), "click",
                 "invoke_action", {"node": "REF", "action": "click"}, judge, "closes the dialog", before_hook=hook)

    # The View popover: check and radio items, a page of it not shown.
    judge, hook = appears(m, {"role": "check menu item", "name": "Line Numbers"}, showing=False)
    await m.cell(view_button, "pointer", "inject_pointer", {"node": "REF"}, judge, "opens its popover",
                 before_hook=hook)

    def numbers_shown(want):
        def judge(b, a, _r):
            on = "checked" in a["w"].get("states", [])
            wide = ((a["g"].get("extents") or [0, 0, 0, 0])[2] > 1)
            was = "checked" in b["w"].get("states", [])
            ok = on == want and wide == want and was != want
            return ok, on != was
        return judge
    await popover(view_button)
    await m.click(pop("Line Numbers", "MenuItemCheckBox", "check menu item"), numbers_shown(True), "check item",
                  also={"g": gutter})
    await popover(view_button)
    await m.click(pop("Line Numbers", "MenuItemCheckBox", "check menu item"), numbers_shown(False), "check item",
                  also={"g": gutter}, how="pointer")
    await popover(view_button)
    await m.toggle(pop("Text Wrapping", "MenuItemCheckBox", "check menu item"), "check item")

    def four():
        return W("menu item 4 (spaces per tab)", "MenuItemRadio", {"role": "radio menu item", "name": "4"},
                 kit_role="MenuItemRadio")
    await popover(view_button)
    await m.click(four(), state("checked"), "other page", "refuse", op="select")
    await popover(view_button)
    await m.click(W("menu item Spaces Per Tab", "MenuItem", {"role": "menu item", "name": "Spaces Per Tab", "nth": 0},
                    kit_role="MenuItem"), other_field("four", "extents", lambda e: e is not None and e[2] > 1),
                  "opens its page", also={"four": four()})
    if ((await m.o.q(cmd="find", spec={"role": "radio menu item", "name": "4", "zero_size": False})).get("ok")):
        await m.click(four(), state("checked"), op="select")
    else:  # the page did not open: a person would open it first
        await popover(view_button)
        spaces = W("Spaces Per Tab (set-up)", "MenuItem", {"role": "menu item", "name": "Spaces Per Tab", "nth": 0})
        await m.setup_action(spaces, "click")
        await m.click(four(), state("checked"), op="select")
    await setup_key(m, "Escape")

    # Long text scrolls.
    await m.set_text(doc, "\n".join(f"line {i}" for i in range(1, 301)))
    await m.scroll(doc, vrange)

    # Tabs.
    tabs = {"role": "filler", "name": "AdwTab"}
    judge, hook = appears(m, dict(tabs, nth=1), showing=False)
    await m.cell(new_tab, "click", "invoke_action", {"node": "REF", "action": "click"}, judge, "a second tab",
                 before_hook=hook)
    judge, hook = appears(m, dict(tabs, nth=2), showing=False)
    await m.cell(new_tab, "pointer", "inject_pointer", {"node": "REF"}, judge, "a third tab", before_hook=hook)
    first_tab = W("tab 1", "GenericContainer", dict(tabs, zero_size=False))
    await m.click(first_tab, other_field("frame", "name", lambda v: (v or "").startswith("gte_saved.txt")),
                  also={"frame": frame}, how="pointer")

    # Preferences: a window of switches, a spin button below the fold, disabled rows.
    await popover(menu_button)
    judge, hook = window_judge(m, "Preferences")
    await m.cell(pop("Preferences"), "click", "invoke_action", {"node": "REF", "action": "click"}, judge,
                 "opens a window", before_hook=hook)
    if "Preferences" not in await asyncio.to_thread(windows_now, m):
        await setup_key(m, "Escape")
        await frame_action("win.show-preferences")
        await wait_find(m, {"role": "frame", "name": "Preferences"})
    prefs = {"role": "frame", "name": "Preferences"}
    await m.toggle(W("prefs Display Grid Pattern", "CheckBox", {"role": "check box", "name": "Display Grid Pattern",
                                                               "within": prefs}))
    await m.toggle(W("prefs Highlight Current Line", "CheckBox", {"role": "check box",
                                                                 "name": "Highlight Current Line", "within": prefs}),
                   how="pointer")
    await m.click(W("prefs Clear History (disabled)", "Button", {"role": "push button",
                                                                 "name": "_Clear History Clear History",
                                                                 "within": prefs}),
                  nothing_changes, "disabled", "refuse")
    await m.set_number(W("prefs Margin Position", "SpinButton", {"role": "spin button", "within": prefs}), 100,
                       "below the fold")
    judge, hook = window_judge(m, "Preferences", want=False)
    await m.cell(W("prefs Close", "Button", {"role": "push button", "name": "Close", "within": prefs}), "click",
                 "invoke_action", {"node": "REF", "action": "click"}, judge, "closes the window", before_hook=hook)


APPS = {
    "writer": {"display": 155, "argv": writer_argv, "by_name": "soffice", "cells": writer_cells,
               "prepare": writer_prepare, "timeout": 90, "call_timeout": 15,
               "package": "libreoffice-writer libreoffice-gtk3"},
    # Started in HOME: the file chooser opens in the working directory (never the source tree).
    "text-editor": {"display": 157,
                    "argv": lambda _e: ["sh", "-c", 'cd "$HOME" && exec gnome-text-editor --standalone'],
                    "cells": text_editor_cells, "package": "gnome-text-editor", "settle": 1.0},
    "mousepad": {"display": 156, "argv": lambda _e: ["sh", "-c", 'cd "$HOME" && exec mousepad --disable-server'],
                 "cells": mousepad_cells, "package": "mousepad", "call_timeout": 12},
}
