"""The matrix's apps with a flow of their own: zenity (one dialog a process, judged by its exit
status and output), the stock eframe app, and LibreOffice Calc (size and budgets)."""

import asyncio
import os
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from atspi_matrix_lib import (Kit, Matrix, Unresolved, Widget as W, brief, log, other_field, state,
                              x_window_size)


# ------------------------------------------------------------------------------------------
# zenity: each dialog is its own process; OK / Yes / Cancel end it
# ------------------------------------------------------------------------------------------

async def exit_cell(m, w, proc, status, stdout, variant="", launched=None):
    """Press `w` (OK, Yes, Cancel): the effect is the app exiting with `status` and printing
    `stdout` (None: anything). `proc` is the app's process (ours, so its status and output are
    the independent reader); `launched`: the kit launched the app itself, and the reply must
    carry `app_exited` with the status and output."""
    try:
        await m.resolve(w)
    except Unresolved as e:
        m.cells.append({"app": m.app, "widget": w.kind, "key": w.key, "op": "click", "variant": variant,
                        "verdict": "unjudged", "note": str(e)})
        log(f"  {w.kind:10} click          {variant:10} UNJUDGED: {e}")
        return
    before = brief(await m.o.read(w.h))
    reply = await m.kit.call("invoke_action", {"node": w.ref, "action": "click"})
    out = None
    code = None
    if proc is not None:
        try:
            out, _ = await asyncio.wait_for(asyncio.to_thread(proc.communicate), 5)
            code = proc.returncode
        except asyncio.TimeoutError:
            code = None
    else:  # launched by the kit: the oracle sees it leave the bus
        deadline = time.monotonic() + 5
        while (await m.o.q(cmd="alive")).get("alive") and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        gone = not (await m.o.q(cmd="alive")).get("alive")
        code = status if gone else None
    exited = reply.data.get("app_exited") if reply.ok else None
    effect = code == status and (stdout is None or proc is None or (out or "").strip() == stdout.strip())
    if reply.ok:
        verdict = "effect" if effect else "LIE_OK"
        if launched and effect:
            ok_exit = isinstance(exited, dict) and exited.get("status") == status and (
                stdout is None or stdout in (exited.get("stdout") or ""))
            verdict = "effect" if ok_exit else "MISSING"
    else:
        # OK, Yes, Cancel: a person presses each, so a refusal is one too many.
        verdict = "LIE_ERR" if effect else "PERSON_COULD"
    m.cells.append({
        "app": m.app, "widget": w.kind, "key": w.key, "op": "click", "variant": variant,
        "expect": "effect", "call": {"tool": "invoke_action", "args": {"node": w.ref, "action": "click"}},
        "reply": {"ok": reply.ok, "code": reply.code, "ms": reply.ms, "data": reply.summary(), "images": []},
        "before": {"w": before}, "after": {"exit_status": code, "stdout": out, "app_exited": exited},
        "verdict": verdict,
    })
    log(f"  {w.kind:10} click          {variant:10} {reply.code or 'ok':18} {reply.ms:5} ms  {verdict}")


async def dialog(desk, oracle, binary, cells, argv, steps, launch=False):
    """One zenity dialog: started by us (or by the kit with `launch`), driven by `steps`."""
    proc = None
    if launch:
        args = ["--launch", " ".join(f"'{a}'" for a in argv)]
    else:
        proc = desk.spawn(argv, capture=True)
        found = await oracle.q(cmd="app", pid=proc.pid, timeout=30)
        if not found.get("ok"):
            raise RuntimeError(f"zenity: {found.get('error')}")
        args = ["--atspi", str(proc.pid)]
    errlog = open(os.path.join(desk.tmp, "server.stderr"), "a")
    params = StdioServerParameters(command=binary, args=args, env=dict(os.environ))
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            if launch:
                found = await oracle.q(cmd="app", name="zenity", timeout=30)
                if not found.get("ok"):
                    raise RuntimeError(f"zenity (launched): {found.get('error')}")
            m = Matrix("zenity", oracle, Kit(session), None)
            m.cells = cells
            await steps(m, proc)
    errlog.close()
    if proc is not None and proc.poll() is None:
        proc.kill()


async def zenity_run(desk, oracle, binary, _extra):
    cells = []
    ok_button = W("OK", "Button", {"role": "push button", "name": "OK"})

    async def entry(m, proc):
        field = W("entry", "TextInput", {"role": "text"})
        await m.set_text(field, "typed over MCP")
        await m.type_text(field, " and keys")
        await m.focus(field)
        # zenity prints what the entry holds, as the reader sees it now.
        text = (await m.o.read(field.h)).get("text")
        await exit_cell(m, W("OK", "Button", {"role": "push button", "name": "OK"}), proc, 0, text)

    async def cancel(m, proc):
        await exit_cell(m, W("Cancel", "Button", {"role": "push button", "name": "Cancel"}), proc, 1, "")

    async def question(m, proc):
        await m.focus(W("No", "Button", {"role": "push button", "name": "No"}))
        await exit_cell(m, W("Yes", "Button", {"role": "push button", "name": "Yes"}), proc, 0, "")

    async def lst(m, proc):
        cell = W("list row Banana", "Cell", {"role": "table cell", "name": "Banana"})
        await m.click(cell, state("selected"), op="select", how="pointer")
        await exit_cell(m, W("OK", "Button", {"role": "push button", "name": "OK"}), proc, 0, "Banana")

    async def activate(m, proc):
        # Activating a row ends the list dialog (its output is recorded: a person's
        # double-click prints the row).
        await exit_cell(m, W("list row Cherry", "Cell", {"role": "table cell", "name": "Cherry"}), proc, 0,
                        None, "activates")

    async def scale(m, proc):
        slider = W("slider", "Slider", {"role": "slider"})
        await m.set_number(slider, 42)
        await m.step(slider, "increment")
        value = (await m.o.read(slider.h)).get("value")
        await exit_cell(m, W("OK", "Button", {"role": "push button", "name": "OK"}), proc, 0,
                        str(round(value)) if value is not None else None)

    async def launched(m, _proc):
        field = W("entry", "TextInput", {"role": "text"})
        await m.set_text(field, "launched", "launched")
        await exit_cell(m, ok_button, None, 0, "launched", "launched", launched=True)

    z = ["zenity"]
    await dialog(desk, oracle, binary, cells, z + ["--entry", "--text", "Your name?"], entry)
    await dialog(desk, oracle, binary, cells, z + ["--entry", "--text", "Leave?"], cancel)
    await dialog(desk, oracle, binary, cells, z + ["--question", "--text", "Proceed?"], question)
    await dialog(desk, oracle, binary, cells,
                 z + ["--list", "--column", "Fruit", "Apple", "Banana", "Cherry"], lst)
    await dialog(desk, oracle, binary, cells,
                 z + ["--list", "--column", "Fruit", "Apple", "Banana", "Cherry"], activate)
    await dialog(desk, oracle, binary, cells,
                 z + ["--scale", "--text", "Level", "--value", "10", "--min-value", "0",
                      "--max-value", "100"], scale)
    await dialog(desk, oracle, binary, cells, z + ["--entry", "--text", "Launched?"], launched, launch=True)
    lies = [c for c in cells if c["verdict"] not in ("effect", "refused")]
    return {"app": "zenity", "cells": cells, "lies": len(lies), "notes": []}


# ------------------------------------------------------------------------------------------
# The stock eframe app (AccessKit)
# ------------------------------------------------------------------------------------------

def label_is(key, text):
    return other_field(key, "name", lambda v: v == text)


async def eframe_cells(m):
    counter = W("counter label", "Label", {"role": "label", "name_contains": "Clicked"}, kit=False)
    add = W("Add one", "Button", {"role": "push button", "name": "Add one"})
    add_off = W("Add ten (disabled)", "Button", {"role": "push button", "name": "Add ten"})
    agree = W("Agree", "CheckBox", {"role": "check box", "name": "Agree"})
    locked = W("Locked (disabled)", "CheckBox", {"role": "check box", "name": "Locked"})
    far = W("Far away (scrolled out)", "CheckBox", {"role": "check box", "name": "Far away"})
    name = W("Name", "TextInput", {"role": "entry", "name": "Name"})
    volume = W("Volume", "Slider", {"role": "slider", "name": "Volume"})
    muted = W("Muted (disabled)", "Slider", {"role": "slider", "name": "Muted"})
    fruit = W("combo box", "ComboBox", {"role": "combo box", "name": "Fruit"})
    first_line = W("Line 1", "Label", {"role": "label", "name": "Line 1"}, kit=False)
    scroller = W("scroll area", "ScrollBar", {"role": "scroll bar"})
    spin = W("Volume (drag value)", "SpinButton", {"role": "spin button", "name": "Volume"})
    chosen = W("Chosen label", "Label", {"role": "label", "name_contains": "Chosen"}, kit=False)
    frame = W("window", "Window", {"role": "frame"})
    also = {"label": counter}
    await m.click(add, label_is("label", "Clicked 1 times"), also=also)
    await m.click(add, label_is("label", "Clicked 2 times"), also=also, how="pointer")
    await m.click(add_off, lambda b, a, r: (False, a["label"]["name"] != b["label"]["name"]), "disabled",
                  "refuse", also=also)
    await m.click(add_off, lambda b, a, r: (False, a["label"]["name"] != b["label"]["name"]), "disabled",
                  "refuse", also=also, how="pointer")
    await m.toggle(agree)
    await m.toggle(agree, how="pointer")
    await m.focus(agree)
    await m.toggle(locked, "disabled", "refuse")
    await m.toggle(locked, "disabled", "refuse", how="pointer")
    # Its accessibility action acts (a screen reader's does).
    await m.toggle(far, "off-screen")
    await m.set_text(name, "Ada")
    await m.type_text(name, " Lovelace")
    await m.type_text(name, " Zoë 日本")
    await m.focus(name)
    await m.set_number(volume, 70)
    await m.step(volume, "increment")
    await m.set_number(muted, 90, "disabled", "refuse")
    await m.step(muted, "increment", "disabled", "refuse")
    await m.screenshot(agree)
    await m.screenshot(frame, window=True, size=x_window_size("Stock eframe app"))
    await m.set_number(spin, 33)

    def moved_up(b, a, _r):
        before, after = b["line"].get("extents"), a["line"].get("extents")
        up = bool(before and after and after[1] < before[1])
        return up, up
    await m.cell(scroller, "scroll", "scroll", {"node": "REF", "dy": 3, "lines": True}, moved_up,
                 also={"line": first_line})
    # A person scrolls to it, then clicks it: the pointer does the same (after the scroll
    # cell, which needs the area at its top).
    await m.toggle(far, "off-screen", how="pointer")
    banana = W("combo item Banana", "ListItem", {"role": "toggle button", "name": "Banana"},
               kit_role="Button")

    def opened(b, a, _r):  # egui builds a combo's items (a list box child) only while it is open
        grew = (a["w"].get("children") or 0) > (b["w"].get("children") or 0)
        return grew, grew
    await m.click(fruit, opened, op="expand")
    await m.click(banana, label_is("label", "Chosen: Banana"), "open popup", also={"label": chosen},
                  op="select")


# ------------------------------------------------------------------------------------------
# LibreOffice Calc: a large, chatty app — every call answers within its budget
# ------------------------------------------------------------------------------------------

async def calc_prepare(oracle):
    """The oracle's handles, taken before the kit attaches (a busy LibreOffice answers slowly)."""
    deadline = time.monotonic() + 60
    while True:
        sheet = await oracle.q(cmd="find", spec={"role": "table", "states": ["showing"]})
        if sheet.get("ok"):
            break
        if time.monotonic() > deadline:
            raise RuntimeError("no spreadsheet after 60 s")
        await asyncio.sleep(0.5)
    b2 = await oracle.must(cmd="table_cell", h=sheet["h"], row=1, col=1)
    frame = await oracle.must(cmd="find", spec={"role": "frame"})
    return {"b2": b2["h"], "frame": frame["h"]}


async def calc_cells(m):
    def answered_within(limit_ms):
        return lambda b, a, r: (r.ok and r.ms <= limit_ms, False)

    frame = W("window", "Window", {"role": "frame"}, kit=False)
    frame.h = m.ctx["frame"]
    await m.cell(frame, "find", "find_node", {"role": "Window"}, answered_within(2000), window=0)
    await m.cell(frame, "snapshot", "snapshot_tree", {"max_nodes": 400}, answered_within(2000), window=0)
    await m.screenshot(frame, window=True)
    b2 = W("cell B2", "Cell", {"role": "table cell", "name": "B2"}, label="B2")
    b2.h = m.ctx["b2"]
    await m.click(b2, state("focused"), op="select", how="pointer")

    def typed(b, a, _r):
        has = "42" in (a["w"].get("text") or "") or "42" in (a["w"].get("name") or "")
        return has, has
    await m.cell(b2, "type_text", "type_text", {"node": "REF", "text": "42\n"}, typed)
