"""Issue 22's "Why" cases on real apps, each its own scenario: the official Python `mcp` SDK
drives `automation --atspi APP` on a private Xvfb and accessibility bus that this script sets
up (run it inside `dbus-run-session`), and pyatspi on the same bus (atspi_oracle.py, the matrix's
reader, under the system python) judges every effect — never the kit's own read.

Usage: python truth_apps.py PATH_TO_AUTOMATION SCENARIO
Prints "ok SCENARIO" when every check passed; raises (exit 1) otherwise.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_client import check, err, sc

HERE = os.path.dirname(os.path.abspath(__file__))
APPS = {
    "value_selector_clear": "gtk3-widget-factory",
    "disabled_refused": "gtk3-widget-factory",
    "off_page_refused": "gtk3-widget-factory",
    "snapshot_depth": "gtk3-widget-factory",
}


def start_session():
    """Xvfb on a free display, the accessibility bus, accessibility on. Returns the processes."""
    # A display number no one holds (Xvfb's -displayfd may hand out one another server
    # still answers on); its socket appears when the server is ready.
    n = next(n for n in range(140, 400) if not os.path.exists(f"/tmp/.X{n}-lock")
             and not os.path.exists(f"/tmp/.X11-unix/X{n}"))
    xvfb = subprocess.Popen(
        ["Xvfb", f":{n}", "-screen", "0", "1600x1200x24", "-noreset"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        if os.path.exists(f"/tmp/.X11-unix/X{n}"):
            break
        time.sleep(0.05)
    os.environ["DISPLAY"] = f":{n}"
    # An activated service gets the bus daemon's environment, not ours: without this, the
    # launcher would name its socket after the caller's display, in the caller's runtime
    # directory — the very path of the accessibility bus the rest of the suite uses, which it
    # replaces, and removes on its way out.
    runtime = tempfile.mkdtemp(prefix="truth-run-")
    os.environ["XDG_RUNTIME_DIR"] = runtime
    subprocess.run(["dbus-update-activation-environment", f"DISPLAY=:{n}", f"XDG_RUNTIME_DIR={runtime}"],
                   check=True)
    # The accessibility bus starts by D-Bus activation (at-spi2-core's service file) on the
    # first call to org.a11y.Bus: one launcher, never two racing for the name.
    for prop in ("IsEnabled", "ScreenReaderEnabled"):
        subprocess.run(
            ["dbus-send", "--session", "--dest=org.a11y.Bus", "/org/a11y/bus",
             "org.freedesktop.DBus.Properties.Set", "string:org.a11y.Status",
             f"string:{prop}", "variant:boolean:true"],
            check=True,
        )
    return [xvfb]


def oracle(app, roles):
    """What pyatspi (the matrix's reader, atspi_oracle.py, under the system python) reads now:
    every object of `roles` (comma-separated pyatspi role names) in document order, each with
    its name, states, value, text and extents; an empty `roles` only waits for the app."""
    cmds = [{"cmd": "app", "name": app, "timeout": 40}]
    cmds += [{"cmd": "find_all", "spec": {"role": r}} for r in roles.split(",") if r]
    out = subprocess.run(
        ["/usr/bin/python3", os.path.join(HERE, "atspi_oracle.py")],
        input="".join(json.dumps(c) + "\n" for c in cmds),
        capture_output=True, text=True, timeout=120,
    )
    answers = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    answers = [a for a in answers if not a.get("ready")]  # its greeting
    check(len(answers) == len(cmds) and all(a.get("ok") for a in answers),
          f"the oracle failed: {answers} {out.stderr}")
    # Handles are per process: leave them out, so two reads compare by what they say.
    return [{k: v for k, v in o.items() if k != "h"} for a in answers[1:] for o in a["all"]]


def code(r):
    return sc(r).get("code") if err(r) else "ok"


def outline(r):
    """The text outline of a snapshot reply (sent as text content) and its structured part."""
    check(not err(r), f"snapshot_tree: {sc(r)}")
    text = "\n".join(c.text for c in r.content if getattr(c, "type", "") == "text")
    return text, sc(r)


async def find_all(s, sel):
    """Every record the kit finds for `sel` (find_node names one match at a time)."""
    first = sc(await s.call_tool("find_node", sel))
    records = [first["record"]] if first.get("record") else []
    for i in range(1, first.get("count", 0)):
        records.append(sc(await s.call_tool("find_node", dict(sel, nth=i)))["record"])
    return records


async def value_selector_clear(s, app):
    """A selector on the value the op itself changes: the op answers ok (resolved once)."""
    before = [o.get("text") for o in oracle(app, "text")]
    check(before.count("entry") >= 2, f"two entries hold 'entry': {before}")
    r = await s.call_tool("set_value", {"node": {"role": "TextInput", "value": "entry", "nth": 1}, "value": ""})
    check(not err(r), f"clearing the second 'entry' field: {sc(r)}")
    after = [o.get("text") for o in oracle(app, "text")]
    changed = [(b, a) for b, a in zip(before, after) if b != a]
    check(changed == [("entry", "")], f"the oracle saw {changed}, expected one 'entry' → ''")


async def disabled_refused(s, app):
    """A disabled check box and a disabled slider: DISABLED, and nothing changes."""
    def disabled_checks():
        return [o for o in oracle(app, "check box")
                if "enabled" not in o["states"] and "sensitive" not in o["states"] and "showing" in o["states"]]

    def disabled_sliders():
        return [o for o in oracle(app, "slider")
                if "enabled" not in o["states"] and "sensitive" not in o["states"] and "showing" in o["states"]]

    boxes = disabled_checks()
    check(boxes, "gtk3-widget-factory shows a disabled check box")
    targets = [m for m in await find_all(s, {"role": "CheckBox", "label": boxes[0]["name"]}) if m.get("disabled")]
    check(targets, "the kit lists a disabled check box")
    r = await s.call_tool("invoke_action", {"node": targets[0]["id"], "action": "click"})
    check(code(r) == "DISABLED", f"click on a disabled check box answered {sc(r)}")
    check(disabled_checks() == boxes, "the disabled check boxes changed")
    sliders = disabled_sliders()
    check(sliders, "gtk3-widget-factory shows a disabled slider")
    targets = [m for m in await find_all(s, {"role": "Slider"}) if m.get("disabled") and not m.get("hidden")]
    check(targets, "the kit lists a disabled slider")
    r = await s.call_tool("set_value", {"node": targets[0]["id"], "value": 10})
    check(code(r) == "DISABLED", f"set_value on a disabled slider answered {sc(r)}")
    check(disabled_sliders() == sliders, "a disabled slider moved")


async def off_page_refused(s, app):
    """A check box on a notebook page that is not shown: NOT_VISIBLE, and it does not toggle."""
    def beer():
        return [o for o in oracle(app, "check box") if o["name"] == "Beer"]

    before = beer()
    check(before and "showing" not in before[0]["states"], f"'Beer' is on a page not shown: {before}")
    r = await s.call_tool("invoke_action", {"node": {"role": "CheckBox", "label": "Beer"}, "action": "click"})
    check(code(r) == "NOT_VISIBLE", f"click on an off-page check box answered {sc(r)}")
    hint = sc(r).get("hint") or ""
    check("page" in hint or "scroll_into_view" in hint, f"the hint says what to open: {hint}")
    r = await s.call_tool("inject_pointer", {"node": {"role": "CheckBox", "label": "Beer"}, "action": "click"})
    check(code(r) == "NOT_VISIBLE", f"a pointer click on it answered {sc(r)}")
    check(beer() == before, f"'Beer' changed: {before} → {beer()}")


async def snapshot_depth(s, app):
    """max_depth 1 from a window: its shown children are there, or the cut is announced."""
    r = await s.call_tool("snapshot_tree", {"max_depth": 1})
    text, r = outline(r)
    lines = [l for l in text.splitlines() if l.strip()]
    check(len(lines) >= 2 or r.get("truncated"), f"max_depth 1 shows nothing below the root and no cut: {r}")
    window = next((l for l in lines if "Window" in l), None)
    check(window is not None, f"a window at depth 1: {text}")
    ref = window.split("[", 1)[1].split("]", 1)[0]
    text, r = outline(await s.call_tool("snapshot_tree", {"root": ref, "max_depth": 1}))
    lines = [l for l in text.splitlines() if l.strip()]
    check(len(lines) >= 2, f"the window's own level 1 is shown through folded containers: {r}")
    check(r.get("truncated") is True or "truncated" in text, f"the cut below level 1 is announced: {text}")


SCENARIOS = {
    "value_selector_clear": value_selector_clear,
    "disabled_refused": disabled_refused,
    "off_page_refused": off_page_refused,
    "snapshot_depth": snapshot_depth,
}


async def main(binary, scenario):
    app = APPS[scenario]
    procs = start_session()
    proc = subprocess.Popen([app], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs.append(proc)
    try:
        oracle(app, "")  # waits until the app is on the bus: --atspi attaches to what is there
        params = StdioServerParameters(command=binary, args=["--atspi", app], env=dict(os.environ))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await SCENARIOS[scenario](session, app)
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
    print("ok", scenario)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
