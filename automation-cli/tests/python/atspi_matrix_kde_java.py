"""The matrix's KDE and Java apps (see atspi_matrix.py): KCalc (Qt 5 + KDE Frameworks) and a
Swing form through the Java ATK wrapper (tests/fixtures/swing/SwingForm.java, judged by
pyatspi and by the app's own stdout)."""

import asyncio
import os
import shutil
import subprocess
import tempfile
import time

from atspi_matrix_lib import (Missing, Unresolved, Widget as W, brief, close, kit_bounds, log, other_field,
                              other_state, state, zero)


# ------------------------------------------------------------------------------------------
# Shared: finding the kit's node by where it is on screen, set-up keys
# ------------------------------------------------------------------------------------------

async def pin(m, w):
    """Take `w`'s kit node by its screen extents. Qt 5.15 answers WINDOW-coordinate extents
    wrong (y is the x again, height is bottom − x: KCalc's "7" at 21,135 42x27 reads
    21,21 42x141), so the library's match on them finds nothing; the screen ones are right.
    A hidden node (no `showing`) is taken among the kit's hidden ones, as the library does.
    Anything not matched is left to `m.resolve` (which records the cell as unjudged)."""
    if w.ref is not None or not w.kit:
        return w
    try:
        await m.resolve(w, kit=False)
    except Unresolved:
        return w
    read = await m.o.read(w.h)
    sel = {"role": w.kit_role}
    label = w.label if w.label is not None else read.get("name")
    if label:
        sel["label"] = label
    first = await m.kit.call("find_node", sel)
    count = (first.data or {}).get("count", 0) if first.ok else 0
    cands = []
    for i in range(min(count, 60)):
        rr = first if (i == 0 and count == 1) else await m.kit.call("find_node", dict(sel, nth=i))
        if rr.ok and rr.data.get("node"):
            cands.append((rr.data["node"], kit_bounds(rr.data.get("record"))))
    scr = read.get("screen")
    if "showing" in read.get("states", []) and not zero(scr):
        origin = ((m.window or {}).get("screen") or [0, 0])[:2]
        rel = [scr[0] - origin[0], scr[1] - origin[1], scr[2], scr[3]]
        for ref, b in cands:
            if close(b, scr) or close(b, rel):
                w.ref = ref
                return w
        log(f"  pin: the kit has no {sel} at {scr}: {cands}")
        return w
    hidden = [ref for ref, b in cands if zero(b)]
    if len(hidden) > w.hidden_index:
        w.ref = hidden[w.hidden_index]
    return w


def xdotool(*args):
    """Set-up only (never judged): a key through XTEST, as a person presses it."""
    if not shutil.which("xdotool"):
        raise Missing("xdotool (Debian: xdotool)")
    subprocess.run(["xdotool", *args], check=False, capture_output=True)


def changed(key):
    """A judge for a cell that expects a refusal: any change of widget `key` counts."""
    def judge(b, a, _r):
        return False, brief(a[key]) != brief(b[key])
    return judge


def answered_within(limit_ms, pred=lambda r: True):
    return lambda b, a, r: (r.ok and r.ms <= limit_ms and bool(pred(r)), False)


def screen_shot_judge(b, a, r):
    """The image holds the widget: its size is the widget's on-screen size."""
    ext = a["w"].get("screen")
    if not r.images or zero(ext):
        return False, False
    return close(r.images[0], ext[2:], 2), False


# ------------------------------------------------------------------------------------------
# KCalc: a KDE main window (menus, modes that show, hide and disable keys); the display's
# accessible name is what it shows
# ------------------------------------------------------------------------------------------

async def kcalc_cells(m):
    o = m.o
    display = W("display", "Window", {"role": "frame", "states": ["focusable", "showing"]}, kit=False)
    D = {"display": display}
    frame = W("window", "Window", {"role": "frame", "states": ["showing"], "not_states": ["focusable"]},
              kit=False)
    keys = {}

    def key(name, shown=True):
        k = (name, shown)
        if k not in keys:
            spec = {"role": "push button", "name": name}
            if shown:
                spec["states"] = ["showing"]
            else:
                spec["not_states"] = ["showing"]
            keys[k] = W(f"key {name}" + ("" if shown else " (hidden)"), "Button", spec)
        return keys[k]

    def item(name, closed=False):
        return W(f"menu item {name}" + (" (closed menu)" if closed else ""), "MenuItem",
                 {"role": "menu item", "name": name})

    def reads(text):
        return other_field("display", "name", lambda v: (v or "").strip() == text)

    async def P(w):
        return await pin(m, w)

    async def press(*names):
        """Set-up through the oracle: the toolkit's Press on each key, in order."""
        for n in names:
            r = await o.q(cmd="find", spec={"role": "push button", "name": n, "states": ["enabled", "showing"]})
            if not r.get("ok"):
                raise RuntimeError(f"set-up: no key {n}: {r.get('error')}")
            await o.q(cmd="do_action", h=r["h"], name="Press")
            await asyncio.sleep(0.12)
        await asyncio.sleep(0.2)

    async def showing(name):
        r = await o.q(cmd="find", spec={"role": "menu item", "name": name})
        return r.get("ok") and "showing" in r["read"].get("states", [])

    async def close_menu(probe):
        """A menu left open (a toolkit action on an item does not close Qt's menu) is closed
        with Escape — only then: Escape on the window clears the display."""
        for _ in range(3):
            if not await showing(probe):
                return
            xdotool("key", "Escape")
            await asyncio.sleep(0.3)

    async def open_menu(name, probe):
        r = await o.must(cmd="find", spec={"role": "menu item", "name": name})
        await o.q(cmd="do_action", h=r["h"], name="ShowMenu")
        deadline = time.monotonic() + 3
        while not await showing(probe) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)

    async def ensure(spec, want=True):
        """Set-up: the check box or radio button `spec` checked (or not), by its own action."""
        r = await o.must(cmd="find", spec=spec)
        if ("checked" in r["read"].get("states", [])) != want:
            for name in ("Toggle", "Press"):
                if (await o.q(cmd="do_action", h=r["h"], name=name)).get("ok"):
                    break
            await asyncio.sleep(0.3)

    async def mode(name):
        """Set-up: the mode `name` checked (the toolkit's Press acts with the menu closed)."""
        r = await o.must(cmd="find", spec={"role": "menu item", "name": name})
        if "checked" not in r["read"].get("states", []):
            await o.q(cmd="do_action", h=r["h"], name="Press")
            await asyncio.sleep(0.6)

    # -- Simple Mode: the keys by action and by pointer, the display judged by its name ------
    await m.click(await P(key("7")), reads("7"), also=D)
    await press("×")
    await m.click(await P(key("6")), reads("6"), also=D)
    await m.click(await P(key("=")), reads("42"), also=D)
    await m.click(await P(key("+/−")), reads("-42"), also=D)
    await m.click(await P(key("C")), reads("0"), also=D, how="pointer")
    await m.click(await P(key("8")), reads("8"), also=D, how="pointer")
    await press("÷")
    await m.click(await P(key("4")), reads("4"), also=D, how="pointer")
    await m.click(await P(key("=")), reads("2"), "chained", also=D, how="pointer")
    await m.click(await P(key("AC")), reads("0"), also=D)
    await press("2", "×", "(", "3", "+", "4")
    await m.click(await P(key(")")), reads("7"), also=D)
    await m.click(await P(key("=")), reads("14"), "parentheses", also=D)
    await press("AC", "1")
    await m.click(await P(key(".")), reads("1."), also=D, how="pointer")
    await press("AC", "5", "0", "×", "1", "0")
    await m.click(await P(key("%")), reads("5"), also=D)
    # Science Mode's keys exist but are hidden in Simple Mode: a person sees no "sin".
    await press("AC", "3", "0")
    await m.click(await P(key("sin", shown=False)), changed("display"), "hidden", "refuse", also=D)
    await m.click(await P(key("sin", shown=False)), changed("display"), "hidden", "refuse", also=D,
                  how="pointer")
    await m.click(await P(key("A", shown=False)), changed("display"), "hidden, disabled", "refuse", also=D)
    await m.focus(await P(key("5")))
    await m.focus(await P(W("display (focus)", "Window", {"role": "frame", "states": ["focusable", "showing"]})))

    # -- Typing: no node (into the focused window, as a person types), and into the display --
    await press("AC")
    frame_read = (await o.must(cmd="find", spec=frame.spec))["read"]
    if "active" not in frame_read.get("states", []):
        m.notes.append("kcalc's window was not active before the typing cells")
    await m.cell(display, "type_text", "type_text", {"text": "7*6="}, reads("42"), "no node", also=D)
    await m.cell(display, "type_text", "type_text", {"text": "1.5+3.25="}, reads("4.75"), "no node, decimals",
                 also=D)
    disp_k = await P(W("display (type)", "Window", {"role": "frame", "states": ["focusable", "showing"]}))
    await m.cell(disp_k, "type_text", "type_text", {"node": "REF", "text": "9-4="}, reads("5"), "display",
                 also=D)
    await m.cell(display, "key", "inject_key", {"key": "escape"}, reads("0"), "Escape clears", also=D)
    await press("1", "2")
    await m.cell(display, "key", "inject_key", {"key": "backspace"}, reads("1"), "Backspace", also=D)

    # -- Reading: screenshots, find_node, snapshot_tree --------------------------------------
    await m.cell(await P(key("=")), "screenshot", "screenshot", {"node": "REF"}, screen_shot_judge, window=0.3)
    await m.screenshot(frame, window=True)
    await press("AC", "4", "2")

    def found_display(b, a, r):
        rec = (r.data or {}).get("record") or {}
        ext = a["w"].get("screen")
        ok = r.ok and r.data.get("count") == 1 and rec.get("label") == a["w"].get("name") and close(
            kit_bounds(rec), ext)
        return ok, False
    await m.cell(display, "find", "find_node", lambda b: {"role": "Window", "label": b["w"]["name"]},
                 found_display, "display by its text", window=0)

    def found_key(b, a, r):
        rec = (r.data or {}).get("record") or {}
        ok = r.ok and r.data.get("count") == 1 and close(kit_bounds(rec), a["w"].get("screen"))
        return ok, False
    eq = key("=")
    await m.resolve(eq, kit=False)
    await m.cell(eq, "find", "find_node", {"role": "Button", "label": "="}, found_key, "by role and label",
                 window=0)

    def small_tree(b, a, r):
        text = (r.data or {}).get("text") or ""
        name = a["display"].get("name") or "?"
        ok = r.ok and r.ms <= 2000 and len(text.encode()) <= 3000 and f'"{name}"' in text
        return ok, False
    await m.cell(frame, "snapshot", "snapshot_tree", {}, small_tree, "≤ 3 kB, names the display", also=D,
                 window=0)

    # -- The menu bar: open a menu, pick an item in it; a closed menu's items are hidden ---------
    science = item("Science Mode")
    await m.click(await P(item("Settings")), other_state("item", "showing"), op="expand",
                  also={"item": science})
    # The popup is wider than the window (Simple Mode): the item's centre is on the popup.
    await m.click(await P(science), state("checked"), "open menu, past the window's edge", how="pointer")
    await close_menu("Science Mode")
    await mode("Science Mode")
    stat = item("Statistic Mode", closed=True)
    await m.click(await P(stat), state("checked"), "closed menu", "refuse")
    await m.click(await P(stat), state("checked"), "closed menu", "refuse", how="pointer")
    settings = await P(item("Settings"))

    def items_shown(want):
        def judge(b, a, _r):
            s = ("showing" in a["item"].get("states", [])) == want
            return s, s and ("showing" in b["item"].get("states", [])) != want
        return judge
    await m.cell(settings, "expand", "expand", {"node": "REF"}, items_shown(True), also={"item": science})
    await m.cell(settings, "collapse", "collapse", {"node": "REF"}, items_shown(False), also={"item": science})
    await close_menu("Science Mode")
    # Edit > Paste: the clipboard holds what Copy took from the display (set-up by the oracle).
    await press("AC", "8", "1")
    copy = await o.must(cmd="find", spec={"role": "menu item", "name": "Copy"})
    await o.q(cmd="do_action", h=copy["h"], name="Press")
    await press("AC")
    paste = item("Paste")
    await m.click(await P(item("Edit")), other_state("item", "showing"), op="expand", how="pointer",
                  also={"item": paste})
    if not await showing("Paste"):
        await open_menu("Edit", "Paste")
    await m.click(await P(paste), reads("81"), "open menu", also=D)
    await close_menu("Paste")

    # -- Science Mode: radio buttons, check boxes, function keys, memory ------------------------
    await m.click(await P(W("Rad", "RadioButton", {"role": "radio button", "name": "Rad"})), state("checked"),
                  op="select")
    await m.click(await P(W("Grad", "RadioButton", {"role": "radio button", "name": "Grad"})),
                  state("checked"), op="select", how="pointer")
    await m.click(await P(W("Deg", "RadioButton", {"role": "radio button", "name": "Deg"})), state("checked"),
                  op="select")
    hyp = await P(W("Hyp", "CheckBox", {"role": "check box", "name": "Hyp"}))
    await m.toggle(hyp)
    await m.toggle(hyp, how="pointer")
    await m.toggle(await P(W("Shift", "CheckBox", {"role": "check box", "name": "Shift"})))
    # sin needs degrees, no Shift (asin) and no Hyp (sinh): whatever the cells left.
    await ensure({"role": "check box", "name": "Shift"}, False)
    await ensure({"role": "check box", "name": "Hyp"}, False)
    await ensure({"role": "radio button", "name": "Deg"})
    await press("AC", "3", "0")
    await m.click(await P(key("sin")), reads("0.5"), also=D)
    await press("AC", "9")
    await m.click(await P(key("x<sup>2</sup>")), reads("81"), also=D, how="pointer")
    mr = key("MR")
    await press("AC", "7")
    await m.click(await P(mr), changed("display"), "disabled (memory empty)", "refuse", also=D)
    await m.click(await P(mr), changed("display"), "disabled (memory empty)", "refuse", also=D, how="pointer")
    await m.focus(await P(mr), "disabled", "refuse")
    await press("AC", "6", "4")
    await m.click(await P(key("MS")), other_state("mr", "enabled"), "enables MR", also={"mr": mr})
    await press("AC")
    await m.click(await P(mr), reads("64"), "now enabled", also=D, how="pointer")

    # -- Numeral System Mode: hex keys disabled in decimal, decimal keys disabled in binary ----
    await open_menu("Settings", "Numeral System Mode")
    await m.click(await P(item("Numeral System Mode")), state("checked"), "open menu")
    await close_menu("Numeral System Mode")
    await mode("Numeral System Mode")
    a_key = key("A")
    await m.click(await P(a_key), changed("display"), "disabled (decimal)", "refuse", also=D)
    await m.click(await P(a_key), changed("display"), "disabled (decimal)", "refuse", also=D, how="pointer")
    await m.click(await P(W("Hex", "RadioButton", {"role": "radio button", "name": "Hex"})), state("checked"),
                  op="select", how="pointer")
    await press("AC")
    await m.click(await P(a_key), reads("A"), "enabled (hex)", also=D)
    await m.click(await P(key("F")), reads("AF"), also=D, how="pointer")
    await m.click(await P(W("Bin", "RadioButton", {"role": "radio button", "name": "Bin"})), state("checked"),
                  op="select")
    five = key("5")
    await m.click(await P(five), changed("display"), "disabled (binary)", "refuse", also=D)
    await m.click(await P(five), changed("display"), "disabled (binary)", "refuse", also=D, how="pointer")
    await press("AC")
    await m.cell(display, "type_text", "type_text", {"text": "2"}, changed("display"), "binary, no digit 2",
                 "refuse", also=D)
    await m.cell(display, "type_text", "type_text", {"text": "101"}, reads("101"), "binary", also=D)

    # -- Settings' check items: Show History shows the history pane; back to Simple Mode -------
    hist = W("history", "TextInput", {"role": "text"}, kit=False)
    await open_menu("Settings", "Show History")
    await m.click(await P(item("Show History")), other_state("hist", "showing"), "open menu",
                  also={"hist": hist})
    await close_menu("Show History")
    await open_menu("Settings", "Simple Mode")
    await m.click(await P(item("Simple Mode")), state("checked"), "open menu", how="pointer")
    await close_menu("Simple Mode")


# ------------------------------------------------------------------------------------------

APPS = {
    "kcalc": {"display": 151, "argv": lambda _e: ["kcalc"], "cells": kcalc_cells, "package": "kcalc",
              "settle": 1.0},
}
