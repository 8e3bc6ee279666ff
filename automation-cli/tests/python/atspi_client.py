"""The Python `mcp` SDK driving real desktop apps through `automation --launch … --virtual-display`.

Usage: python atspi_client.py PATH_TO_AUTOMATION SCENARIO ERRLOG
SCENARIO: zenity | calculator. The server's stderr goes to ERRLOG.
Exits 0 and prints "ok SCENARIO" when every check passed; raises (exit 1) otherwise.
"""

import asyncio
import sys
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def g(obj, snake, camel):
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def err(r):
    return bool(g(r, "is_error", "isError"))


def sc(r):
    return g(r, "structured_content", "structuredContent") or {}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


async def call(session, tool, args):
    r = await session.call_tool(tool, args)
    check(not err(r), f"{tool} {args}: {sc(r)}")
    return sc(r)


def first_word(label):
    return (label or "").split(" ")[0]


async def zenity(session, errlog):
    found = await call(session, "find_node", {"role": "TextInput"})
    entry = found["node"]
    check(isinstance(entry, str), f"an entry: {found}")
    await call(session, "set_value", {"node": entry, "value": "typed over MCP"})
    await call(session, "assert_node", {"node": entry, "kind": "value_equals", "value": "typed over MCP"})
    ok = await call(session, "find_node", {"role": "Button", "label": "OK"})
    await session.call_tool("invoke_action", {"node": ok["node"], "action": "press"})
    deadline = time.time() + 10
    while time.time() < deadline:
        log = open(errlog).read()
        if "the app exited" in log:
            break
        await asyncio.sleep(0.1)
    log = open(errlog).read()
    check("[app stdout] typed over MCP" in log, f"zenity printed the text: {log}")
    check("the app exited: exit status: 0" in log, f"zenity exited 0: {log}")
    gone = await session.call_tool("snapshot_tree", {})
    check(err(gone) and sc(gone).get("code") == "APP_GONE", f"after exit: {sc(gone)}")


async def calculator(session, errlog):
    snap = await call(session, "snapshot_tree", {"format": "json"})
    buttons = [n for n in snap["nodes"] if n["role"] == "Button"]
    by_label = {}
    for n in buttons:
        by_label.setdefault(n.get("label"), n["id"])
        by_label.setdefault(first_word(n.get("label")), n["id"])
    for key in ["6", "×", "7", "="]:
        check(key in by_label, f"button {key} in {sorted(k for k in by_label if k)}")
        await call(session, "invoke_action", {"node": by_label[key], "action": "click"})
    deadline = time.time() + 5
    while True:
        snap = await call(session, "snapshot_tree", {"format": "json"})
        hit = [n for n in snap["nodes"]
               if (n.get("value") or "").strip() == "42"
               or (n["role"] != "Button" and (n.get("label") or "").strip() == "42")]
        if hit:
            break
        check(time.time() < deadline, "the display reads 42")
        await call(session, "settle", {})
    shot = await session.call_tool("screenshot", {})
    check(not err(shot), f"screenshot: {sc(shot)}")
    check(any(getattr(c, "type", "") == "image" for c in shot.content), "an image block")
    wins = await call(session, "list_windows", {})
    check(len(wins["windows"]) >= 1, f"windows: {wins}")
    clock = await session.call_tool("advance_clock", {"millis": 100})
    check(err(clock) and sc(clock).get("code") == "UNSUPPORTED", f"advance_clock: {sc(clock)}")


async def main(binary, scenario, errlog):
    command = {"zenity": "zenity --entry --text 'Your name?'", "calculator": "gnome-calculator"}[scenario]
    params = StdioServerParameters(command=binary, args=["--launch", command, "--virtual-display"])
    with open(errlog, "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await {"zenity": zenity, "calculator": calculator}[scenario](session, errlog)
    print("ok", scenario)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
