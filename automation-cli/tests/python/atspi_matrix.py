"""The oracle-judged conformance matrix (issue 22): the kit, as an MCP server over AT-SPI, drives
a real app; an independent reader (pyatspi, `atspi_oracle.py`, on the same bus) judges each reply.

Usage (inside `dbus-run-session --`, with the venv python that has the `mcp` SDK):
    python atspi_matrix.py APP AUTOMATION_BIN OUT_JSON [APP_BINARY]
APP: one of atspi_matrix_apps.APPS (gtk3, gtk4, qt5-calculator, qt5-gallery, zenity, eframe,
calc). Writes OUT_JSON (every cell) and exits 0 when the run completed, lies or not (the Rust
test reads the cells and fails on lies); exits 4 with a line `MISSING …` naming the Debian
package when something the run needs is missing, 1 on any other failure.

A cell is one op on one widget: the tool call sent, the reply, the oracle's read of the
widget (and of what the op should change) before and after, and the verdict:
- `effect`: ok, and the oracle saw the effect;
- `refused`: an error, and the oracle saw nothing change;
- `LIE_OK`: ok, and the oracle saw no effect (or, on a widget a person cannot use, nothing);
- `LIE_ERR`: an error, and the oracle saw the effect happen;
- `ACTED`: a widget a person cannot use (disabled) changed.
"""

import asyncio
import json
import os
import sys
import time

try:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError as e:  # the harness runs in the venv with the SDK (AUTOMATION_PYTHON)
    print(f"MISSING python-mcp: the `mcp` SDK is not importable ({e}); run with AUTOMATION_PYTHON")
    sys.exit(4)

from atspi_matrix_lib import Desktop, Kit, Matrix, Missing, Oracle
from atspi_matrix_apps import APPS


async def snapshot_bytes(kit):
    """The bytes of the app's first snapshot as an agent gets it (the tool's text), the
    default (hidden subtrees folded into a line each) and with `include_hidden`; the whole
    tree, not the default 400 nodes."""
    sizes = {}
    for key, args in (("folded", {}), ("with_hidden", {"include_hidden": True})):
        r = await asyncio.wait_for(kit.s.call_tool("snapshot_tree", dict(args, max_nodes=20000)), 60)
        text = "".join(getattr(b, "text", "") or "" for b in r.content)
        sizes[key] = None if getattr(r, "isError", False) else len(text.encode())
    return sizes


async def serve_app(desk, oracle, binary, app, spec, extra):
    """Start the app, attach the kit to it by pid, run the app's cells."""
    argv = spec["argv"](extra)
    # The registry answering first: it starts by D-Bus activation, and an app that registers
    # while it is still starting may never show up (seen with a Qt 5 example under load).
    await oracle.q(cmd="app", pid=0, name=None, timeout=0)
    proc = desk.spawn(argv)
    found = await oracle.q(cmd="app", pid=None if spec.get("by_name") else proc.pid,
                           name=spec.get("by_name"), timeout=spec.get("timeout", 40))
    if not found.get("ok"):
        # Not on the bus, for pyatspi either, before the kit is involved: the Qt calculator,
        # started right after LibreOffice, sometimes runs and never registers. Say so, and
        # start it once more — what is judged is the kit, not the app's start.
        state = "running" if proc.poll() is None else f"exited ({proc.returncode})"
        print(f"note: {argv[0]} ({state}) was not on the bus; starting it again", flush=True)
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
        proc = desk.spawn(argv)
        found = await oracle.q(cmd="app", pid=None if spec.get("by_name") else proc.pid,
                               name=spec.get("by_name"), timeout=spec.get("timeout", 40))
    if not found.get("ok"):
        alive = "running" if proc.poll() is None else f"exited ({proc.returncode})"
        raise RuntimeError(f"{argv[0]} ({alive}): {found.get('error')}")
    if spec.get("settle"):
        await asyncio.sleep(spec["settle"])
    ctx = await spec["prepare"](oracle) if "prepare" in spec else None  # before the kit loads the app
    wins = await oracle.must(cmd="windows")
    main = next((x for x in wins["all"] if "showing" in x.get("states", [])), wins["all"][0])
    errlog_path = os.path.join(desk.tmp, "server.stderr")
    result = {}
    with open(errlog_path, "w") as errlog:
        params = StdioServerParameters(command=binary, args=["--caps", "all", "--atspi", str(found["pid"])],
                                       env=dict(os.environ))
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                m = Matrix(app, oracle, Kit(session, spec.get("call_timeout", 20)), main)
                m.ctx = ctx
                snapshot_sizes = {"folded": None, "with_hidden": None}
                try:
                    snapshot_sizes = await snapshot_bytes(m.kit)
                    await spec["cells"](m)
                except Exception as e:  # noqa: BLE001 (the cells so far are kept; the run is not complete)
                    m.notes.append(f"aborted: {type(e).__name__}: {e}")
                    m.aborted = True
                finally:
                    result = m.result()
                    result["snapshot_bytes"] = snapshot_sizes
                    print("kit time:", {k: round(v, 1) for k, v in m.kit.spent.items()}, file=sys.stderr)
    return result


async def run(app, binary, out_path, extra):
    spec = APPS[app]
    desk = Desktop(spec["display"])
    oracle = None
    result = {"app": app, "completed": False, "cells": []}
    t0 = time.monotonic()
    try:
        desk.start()
        oracle = Oracle()
        if "run" in spec:  # an app with its own flow (zenity: one dialog a process)
            result = await spec["run"](desk, oracle, binary, extra)
        else:
            result = await serve_app(desk, oracle, binary, app, spec, extra)
        result["completed"] = not result.get("aborted")
    except Missing as e:
        print(f"MISSING {e}")
        sys.exit(4)
    finally:
        result["seconds"] = round(time.monotonic() - t0, 1)
        with open(out_path, "w") as f:
            json.dump(result, f, indent=1, ensure_ascii=False)
        if oracle:
            oracle.stop()
        desk.stop()
    if oracle:
        print("oracle time:", {k: round(v, 1) for k, v in oracle.spent.items()}, file=sys.stderr)
    n = len(result.get("cells", []))
    print(f"completed {app}: {n} cells, {result.get('lies', 0)} lies, {result['seconds']} s")


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] not in APPS:
        print(__doc__)
        sys.exit(2)
    asyncio.run(run(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None))
