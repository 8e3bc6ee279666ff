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
"""

import asyncio
import json
import sys
import time

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


async def client(url, who, text, selector, ready, typed, out):
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
    except BaseException as e:  # the barrier must not hang the other client
        rec["error"] = f"{type(e).__name__}: {e}"
        ready.abort()
        typed.abort()
        if not isinstance(e, Exception):
            raise
    rec["wall_ms"] = round((time.monotonic() - t0) * 1000)


async def main(url, selector):
    ready = asyncio.Barrier(2)
    typed = asyncio.Barrier(2)
    out = {}
    t = time.monotonic()
    await asyncio.gather(
        client(url, "A", "alpha-A", selector, ready, typed, out),
        client(url, "B", "bravo-B", selector, ready, typed, out),
    )
    total = round((time.monotonic() - t) * 1000)
    checks = {}
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
