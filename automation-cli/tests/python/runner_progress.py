"""execute_sequence from a real third-party MCP client (the Python `mcp` SDK).

Usage: python runner_progress.py PATH_TO_AUTOMATION FLOW_DIR
Checks: progress arrives on the request's own token, never goes backwards, stops before the
result; no log notification arrives unless the request asked for one (per-request log level,
MCP 2026-07-28); with the opt-in, step events arrive as notifications/message. Prints "ok".
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def g(obj, snake, camel):
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# The retry's pause (150 ms) keeps the run past two progress intervals (50 ms each), however
# fast the steps themselves are, so several progress notifications are due.
STEPS = [
    {"id": "find", "tool": "find_node", "args": {"role": "TextInput", "label": "Name"}},
    {"id": "type", "tool": "type_text", "args": {"node": "{{find_result.node}}", "text": "Ada"}},
    {"id": "skipped", "tool": "invoke_action", "if": "find_status == 'error'",
     "args": {"node": {"role": "Button", "label": "Cancel"}, "action": "click"}},
    {"id": "save", "tool": "invoke_action", "retries": 1, "retry_delay_ms": 150,
     "args": {"node": {"role": "Button", "label": "{{ coalesce(runtime.last_error.candidates[0].label, 'Sav') }}"}, "action": "click"}},
    {"id": "saved", "tool": "assert_node", "args": {"node": {"role": "Label", "value": "Saved"}, "kind": "exists"}},
    {"id": "shot", "tool": "screenshot", "args": {}},
]


async def main(binary: str) -> None:
    logs = []
    progress = []
    after_result = []
    done = {"flag": False}

    async def on_log(params):
        (after_result if done["flag"] else logs).append(params)

    params = StdioServerParameters(command=binary, args=["--headless"], env={"AUTOMATION_RECORDS": "off", "PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            await session.initialize()
            names = [t.name for t in (await session.list_tools()).tools]
            check("execute_sequence" in names, f"tools: {names}")

            async def on_progress(value, total, message):
                (after_result if done["flag"] else progress).append((value, total, message))

            # 1. No log level asked: progress on our token only, no notifications/message.
            r = await session.call_tool("execute_sequence", {"steps": STEPS}, progress_callback=on_progress)
            done["flag"] = True
            sc = g(r, "structured_content", "structuredContent") or {}
            check(not g(r, "is_error", "isError"), f"the run passed: {json.dumps(sc)[:2000]}")
            statuses = {s["id"]: s["status"] for s in sc["steps"]}
            check(statuses == {"find": "passed", "type": "passed", "skipped": "skipped", "save": "passed", "saved": "passed", "shot": "passed"}, f"{statuses}")
            check([s for s in sc["steps"] if s["id"] == "save"][0].get("attempts") == 2, "the retry recovered the step")
            check(any(c.type == "image" for c in r.content), "the screenshot is image content")
            check(len(progress) >= 3, f"progress arrived: {progress}")
            values = [p[0] for p in progress]
            check(all(b > a for a, b in zip(values, values[1:])), f"progress strictly increases: {values}")
            check(any(m and "✓" in m for _, _, m in progress), f"step text rides in the progress message: {progress}")
            await asyncio.sleep(0.5)
            check(after_result == [], f"nothing after the result: {after_result}")
            check(logs == [], f"no log notification unless asked: {logs}")

            # 2. A failing run, with the per-request log level: step events as log messages.
            done["flag"] = False
            progress.clear()
            bad = [{"id": "gone", "tool": "invoke_action", "args": {"node": {"role": "Button", "label": "Nope"}, "action": "click"}}]
            r = await session.call_tool(
                "execute_sequence", {"steps": bad}, progress_callback=on_progress,
                meta={"io.modelcontextprotocol/logLevel": "info"},
            )
            done["flag"] = True
            sc = g(r, "structured_content", "structuredContent") or {}
            check(g(r, "is_error", "isError"), "a failed run is an isError result")
            check(sc["error"]["code"] == "NOT_FOUND" and sc["error"]["step"] == "gone", f"{sc}")
            data = [g(l, "data", "data") for l in logs]
            check(any(d.get("type") == "step_failed" and "NOT_FOUND" in d.get("message", "") for d in data),
                  f"step_failed arrived as a log message: {data}")
            await asyncio.sleep(0.3)
            check(after_result == [], f"nothing after the result: {after_result}")

            # 3. A TypeScript script that does not compile: the transpiler's contract.
            r = await session.call_tool("execute_sequence", {"script": "const x string = 1;"})
            sc = g(r, "structured_content", "structuredContent") or {}
            e = sc["error"]
            check(e["error_type"] == "syntax_error" and e["can_fix"] is True, f"{e}")
            check(e["location"] == {"line": 1, "column": 8} and e["recovery"] == "fix_code", f"{e}")
            check(e["error_line"] == "const x string = 1;", f"{e}")

            # 4. The shipped TypeScript example through the JS client, over MCP.
            example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "flows", "save-name.ts")
            progress.clear()
            done["flag"] = False
            r = await session.call_tool("execute_sequence", {"file": os.path.normpath(example)}, progress_callback=on_progress)
            done["flag"] = True
            sc = g(r, "structured_content", "structuredContent") or {}
            check(not g(r, "is_error", "isError"), f"the TypeScript example passed: {json.dumps(sc)[:3000]}")
            check([s["id"] for s in sc["steps"]] == ["type", "save", "saved", "screenshot"], f"{sc['steps']}")
            check(any(c.type == "image" for c in r.content), "its screenshot is image content")
            values = [p[0] for p in progress]
            check(len(values) >= 2 and all(b > a for a, b in zip(values, values[1:])), f"progress: {progress}")

    print("ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
