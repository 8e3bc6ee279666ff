"""Two MCP clients at once over streamable HTTP (the official Python `mcp` SDK) against
`automation serve --http 127.0.0.1:0 --launch CMD`, where each MCP session launches its own copy
of CMD on its own private display.

Usage: python mcp_http_two.py URL [SELECTOR_JSON]
  URL            the MCP endpoint, e.g. http://127.0.0.1:PORT/mcp
  SELECTOR_JSON  find_node's arguments for the text field (default {"role": "TextInput"}: the
                 one entry of `zenity --entry --text Name`; for gtk3-widget-factory
                 '{"role": "TextInput", "nth": 2}', its first empty entry)

Client A types "alpha-A" and client B "bravo-B" at the same moment (asyncio.gather, a barrier
before the typing and one after); each then reads its own field back, and it holds exactly its
own text — nothing of the other's. Prints one JSON line (per-call timings, the values read);
exit 0 only when both held.

With AUTOMATION_SERVER_PID set (the server's pid), each app is also read by an independent
reader while both sessions are open: pyatspi (atspi_oracle.py, the system python) on each
app's own private bus, found in its environment (/proc/PID/environ); each entry holds exactly
the text its own client typed.
"""

import asyncio
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

from mcp import ClientSession

try:  # mcp 2.x
    from mcp.client.streamable_http import streamable_http_client as http_client
except ImportError:  # mcp 1.x
    from mcp.client.streamable_http import streamablehttp_client as http_client


def g(obj, snake, camel):
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel, None)


class Failed(Exception):
    pass


async def call(session, log, tool, args):
    t = time.monotonic()
    r = await session.call_tool(tool, args)
    ms = round((time.monotonic() - t) * 1000)
    data = g(r, "structured_content", "structuredContent") or {}
    log.append({"tool": tool, "args": args, "ms": ms, "error": bool(g(r, "is_error", "isError"))})
    if g(r, "is_error", "isError"):
        text = " ".join(getattr(c, "text", "") for c in (r.content or []))
        raise Failed(f"{tool} {json.dumps(args, ensure_ascii=False)}: {data or text}")
    return data


async def client(url, who, text, selector, ready, typed, done, release, out):
    log = []
    rec = out[who] = {"text": text, "calls": log}
    t0 = time.monotonic()
    try:
        async with http_client(url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                rec["server"] = getattr(g(init, "server_info", "serverInfo"), "name", None)
                rec["initialize_ms"] = round((time.monotonic() - t0) * 1000)
                found = await call(session, log, "find_node", selector)
                node = found.get("node")
                rec["node"] = node
                before = await call(session, log, "read_node", {"node": node})
                rec["before"] = before.get("value")
                await ready.wait()  # both sessions have their app and field
                t = time.monotonic()
                await call(session, log, "type_text", {"node": node, "text": text})
                rec["type_ms"] = round((time.monotonic() - t) * 1000)
                await typed.wait()  # both have typed
                after = await call(session, log, "read_node", {"node": node})
                rec["after"] = after.get("value")
                done.set()
                await release.wait()  # the independent reader has read both apps
    except BaseException as e:  # the barrier must not hang the other client
        rec["error"] = f"{type(e).__name__}: {e}"
        ready.abort()
        typed.abort()
        done.set()
        if not isinstance(e, Exception):
            raise
    rec["wall_ms"] = round((time.monotonic() - t0) * 1000)


def descendants(root):
    """Pids under `root` (by ppid), with their command names."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = open(f"/proc/{d}/stat").read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append((int(d), name))
    out, todo = [], [root]
    while todo:
        for pid, name in kids.get(todo.pop(), []):
            out.append((pid, name))
            todo.append(pid)
    return out


def oracle_texts(server_pid, app_name="zenity"):
    """Each app's entry text as pyatspi reads it on the app's own bus."""
    texts = []
    for pid, name in descendants(server_pid):
        if name != app_name:
            continue
        env = dict(e.split("=", 1) for e in open(f"/proc/{pid}/environ").read().split("\0") if "=" in e)
        keep = {k: env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR") if k in env}
        cmds = [{"cmd": "app", "pid": pid, "timeout": 10}, {"cmd": "find", "spec": {"role": "text"}}]
        got = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "atspi_oracle.py")],
                             input="".join(json.dumps(c) + "\n" for c in cmds), capture_output=True,
                             text=True, env={**os.environ, **keep}, timeout=60)
        replies = [json.loads(line) for line in got.stdout.splitlines() if line.strip()]
        found = replies[-1] if replies else {"ok": False, "error": got.stderr[-500:]}
        texts.append({"pid": pid, "display": keep.get("DISPLAY"),
                      "text": (found.get("read") or {}).get("text"), "reply_ok": found.get("ok")})
    return texts


async def main(url, selector):
    ready = asyncio.Barrier(2)
    typed = asyncio.Barrier(2)
    done = {"A": asyncio.Event(), "B": asyncio.Event()}
    release = asyncio.Event()
    out = {}
    server_pid = int(os.environ.get("AUTOMATION_SERVER_PID", "0"))

    async def judge():
        await done["A"].wait()
        await done["B"].wait()
        try:
            if server_pid:
                out["oracle"] = await asyncio.to_thread(oracle_texts, server_pid)
        finally:
            release.set()

    t = time.monotonic()
    await asyncio.gather(
        client(url, "A", "alpha-A", selector, ready, typed, done["A"], release, out),
        client(url, "B", "bravo-B", selector, ready, typed, done["B"], release, out),
        judge(),
    )
    total = round((time.monotonic() - t) * 1000)
    checks = {}
    if server_pid:
        seen = sorted(o.get("text") or "" for o in out.get("oracle", []))
        checks["the independent reader sees two apps, one with each text"] = seen == ["alpha-A", "bravo-B"]
        checks["the two apps are on two displays"] = len({o.get("display") for o in out.get("oracle", [])}) == 2
    for who, other in (("A", "B"), ("B", "A")):
        r = out[who]
        checks[f"{who}: no error"] = "error" not in r
        checks[f"{who}: field empty before"] = r.get("before") in ("", None)
        checks[f"{who}: reads back exactly {r['text']!r}"] = r.get("after") == r["text"]
        checks[f"{who}: none of {other}'s text"] = out[other]["text"] not in (r.get("after") or "")
    ok = all(checks.values())
    print(json.dumps({"script": "mcp_http_two", "ok": ok, "total_ms": total, "checks": checks,
                      "clients": out, "failed": [k for k, v in checks.items() if not v]},
                     ensure_ascii=False, default=repr), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sel = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {"role": "TextInput"}
    sys.exit(asyncio.run(main(sys.argv[1], sel)))
