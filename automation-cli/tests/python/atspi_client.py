"""The Python `mcp` SDK driving real desktop apps through `automation --launch … --virtual-display`.

Usage: python atspi_client.py PATH_TO_AUTOMATION SCENARIO ERRLOG [ORACLE]
SCENARIO: zenity | calculator | calculator_speed. The server's stderr goes to ERRLOG.
ORACLE (calculator_speed): automation-atspi/tests/oracle.py, run with the system python3
(pyatspi) on the app's display and bus, read from the app's own environment.
Exits 0 and prints "ok SCENARIO" when every check passed; raises (exit 1) otherwise.
Measurements go to stderr.
"""

import asyncio
import json
import os
import statistics
import subprocess
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
    pressed = await session.call_tool("invoke_action", {"node": ok["node"], "action": "press"})
    # The effect of OK is the app exiting: ok, with how it exited and what it printed.
    check(not err(pressed), f"OK ended the app as asked, yet answered an error: {sc(pressed)}")
    exited = sc(pressed).get("app_exited")
    check(exited is not None, f"OK ended the app, the reply must say so: {sc(pressed)}")
    check(exited.get("status") == 0, f"zenity exits 0: {exited}")
    check(exited.get("stdout") == "typed over MCP\n", f"zenity's output: {exited}")
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


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = open(f"/proc/{d}/stat").read()
        except OSError:
            continue
        # Fields after the command (which may hold spaces) start after the last ')'.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(d))
    return out


def comm(pid):
    try:
        return open(f"/proc/{pid}/comm").read().strip()
    except OSError:
        return ""


class Oracle:
    """pyatspi (tests/oracle.py under the system python3) on the app's display and bus."""

    def __init__(self, script, app):
        # The app is a child of the server, which is a child of this process.
        server = children(os.getpid())
        apps = [p for s in server for p in children(s) if comm(p) == app[:15]]
        check(len(apps) == 1, f"one {app} under the server: {server} -> {apps}")
        pid = str(apps[0])
        raw = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        env = dict(kv.decode(errors="replace").split("=", 1) for kv in raw if b"=" in kv)
        self.proc = subprocess.Popen(
            ["/usr/bin/python3", script, pid],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        check("ready" in self.proc.stdout.readline(), "the oracle started")

    def ask(self, cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        check("error" not in answer, f"the oracle failed on {cmd}: {answer}")
        return answer

    def close(self):
        self.proc.kill()
        self.proc.wait()


def median_ms(xs):
    return round(statistics.median(xs) * 1000, 1)


async def calculator_speed(session, errlog, oracle_script):
    """Click gnome-calculator's "1" CLICKS times: each reply (settle quiet_ms 0: it returns
    at the click's first effect) must come with the effect pyatspi then reads on the display."""
    clicks = 24
    snap = await call(session, "snapshot_tree", {"format": "json"})
    one = next((n["id"] for n in snap["nodes"]
                if n["role"] == "Button" and first_word(n.get("label")) == "1"), None)
    check(one is not None, "a 1 key")
    oracle = Oracle(oracle_script, "gnome-calculator")
    try:
        display = next((n for n in oracle.ask({"dump": True})["nodes"]
                        if n["role"] == "text" and "editable" in n["states"]), None)
        check(display is not None, "pyatspi sees the calculator's editable display")
        replies, verified, effects = [], [], []
        for k in range(1, clicks + 1):
            t0 = time.perf_counter()
            r = await call(session, "invoke_action", {
                "node": one, "action": "click",
                "settle": {"quiet_ms": 0, "settle_timeout_ms": 2000}})
            t1 = time.perf_counter()
            replies.append(t1 - t0)
            effects.append((r.get("settled") or {}).get("first_effect_ms"))
            deadline = t1 + 2
            while True:
                text = oracle.ask({"read": display["id"]})["text"] or ""
                if text.count("1") >= k:
                    break
                check(time.perf_counter() < deadline,
                      f"click {k} answered {r}, but pyatspi reads {text!r}")
            verified.append(time.perf_counter() - t0)
            check(text.count("1") == k, f"click {k}: one 1 more, pyatspi reads {text!r}")
    finally:
        oracle.close()
    report = {"clicks": clicks, "reply_median_ms": median_ms(replies),
              "verified_median_ms": median_ms(verified),
              "reply_ms": [round(x * 1000, 1) for x in replies],
              "first_effect_ms": effects}
    print("calculator_speed " + json.dumps(report), file=sys.stderr)
    limit = float(os.environ.get("AUTOMATION_CLICK_MEDIAN_LIMIT_MS", "150"))
    check(median_ms(replies) <= limit, f"median click-to-effect {median_ms(replies)} ms > {limit} ms")


async def main(binary, scenario, errlog, oracle_script=None):
    command = {"zenity": "zenity --entry --text 'Your name?'", "calculator": "gnome-calculator",
               "calculator_speed": "gnome-calculator"}[scenario]
    # The server gets our environment (AUTOMATION_VIRTUAL_DISPLAYS and the like), not the
    # SDK's default one.
    params = StdioServerParameters(command=binary, args=["--launch", command, "--virtual-display"],
                                   env=dict(os.environ))
    with open(errlog, "w") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                if scenario == "calculator_speed":
                    await calculator_speed(session, errlog, oracle_script)
                else:
                    await {"zenity": zenity, "calculator": calculator}[scenario](session, errlog)
    print("ok", scenario)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
