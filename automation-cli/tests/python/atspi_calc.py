"""The Python `mcp` SDK driving LibreOffice Calc through `automation --launch 'localc …'
--virtual-display`: every call answers within 2 s, and a value typed into B2 is read back by
pyatspi (the system python3) on the server's private bus.

Usage: python atspi_calc.py PATH_TO_AUTOMATION PROFILE_DIR ORACLE_SCRIPT ERRLOG
PROFILE_DIR is a LibreOffice profile of this run's own (a Calc started on another profile, or
on the same one elsewhere, would take the document). Prints one "timing OP MS" line a call,
then "ok calc" when every check passed; raises (exit 1) otherwise.
"""

import asyncio
import json
import os
import subprocess
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BUDGET_S = 2.0


def g(obj, snake, camel):
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


async def timed(session, tool, args):
    t = time.monotonic()
    r = await session.call_tool(tool, args)
    took = time.monotonic() - t
    data = g(r, "structured_content", "structuredContent") or {}
    print(f"timing {tool} {json.dumps(args)} {took * 1000:.0f}", flush=True)
    check(not g(r, "is_error", "isError"), f"{tool} {args}: {data}")
    check(took < BUDGET_S, f"{tool} {args} took {took:.2f} s")
    return data


def app_process(profile):
    """The pid of soffice.bin running on `profile`, and its environment."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            if not cmd[0].endswith(b"soffice.bin") or not any(profile.encode() in a for a in cmd):
                continue
            env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        pairs = (e.decode(errors="replace").split("=", 1) for e in env if b"=" in e)
        return int(pid), dict(pairs)
    raise AssertionError(f"no soffice.bin on {profile}")


def oracle_cell(oracle, profile, row, col):
    pid, env = app_process(profile)
    keep = {k: env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR") if k in env}
    out = subprocess.run(
        ["/usr/bin/python3", oracle, str(pid)],
        input=json.dumps({"cell": [row, col]}) + "\n",
        capture_output=True,
        text=True,
        env={**os.environ, **keep},
        timeout=30,
    )
    check(out.returncode == 0, f"the oracle failed: {out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])  # after its {"ready": true}


async def calc(session, profile, oracle):
    found = await timed(session, "find_node", {"role": "Window"})
    check(isinstance(found.get("node"), str), f"a window: {found}")
    await timed(session, "snapshot_tree", {})
    b2 = await timed(session, "find_node", {"role": "Cell", "label": "B2"})
    # type_text with the cell: the kit gives it the focus (GrabFocus moves the cell cursor;
    # Calc 7.4 reports its cells' extents 25 px too high until the sheet is first used, so a
    # click would miss), then types; Enter commits the cell.
    await timed(session, "type_text", {"node": b2["node"], "text": "42\n"})
    deadline = time.time() + 5
    while True:
        cell = oracle_cell(oracle, profile, 1, 1)
        if cell.get("text") == "42":
            check(cell.get("name") == "B2", f"the cell: {cell}")
            break
        check(time.time() < deadline, f"pyatspi reads B2 as {cell}")
        await asyncio.sleep(0.1)
    read = await timed(session, "read_node", {"node": b2["node"]})
    check(read.get("value") == "42", f"the kit reads B2 as {read}")


async def main(binary, profile, oracle, errlog):
    command = f"localc --norestore -env:UserInstallation=file://{profile}"
    params = StdioServerParameters(
        command=binary,
        args=["--launch", command, "--virtual-display"],
        env=dict(os.environ),
    )
    with open(errlog, "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await calc(session, profile, oracle)
    print("ok calc")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
