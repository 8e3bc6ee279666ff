"""An agent's exploration of the headless demo through the official Python `mcp` SDK, exported
as a test with `export_test` (TypeScript and YAML), then run by `automation run` against a fresh
start.

Usage: python authoring_session.py PATH_TO_AUTOMATION OUT_DIR
Prints one JSON line: the exported sources, what was left out and each run's exit code.
"""

import asyncio
import json
import os
import re
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_client import check, err, sc


async def explore(binary: str, out_dir: str) -> dict:
    params = StdioServerParameters(command=binary, args=["--headless"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            calls = []

            async def call(name, args, ok=True):
                r = await s.call_tool(name, args)
                calls.append(name)
                check(err(r) != ok, f"call {len(calls)} {name} {args}: {r}")
                return r

            await call("snapshot_tree", {})                                           # 1 explore
            found = sc(await call("find_node", {"role": "TextInput", "label": "Name"}))  # 2
            field = found["node"]
            check(re.fullmatch(r"e\d+", field), f"a reference: {field}")
            await call("read_node", {"node": field})                                  # 3 before any action
            await call("set_value", {"node": field, "value": "Grace"})                # 4 typed: an input
            read = sc(await call("read_node", {"node": field, "with_selector": True}))  # 5 a check
            check(read.get("selector") == {"role": "TextInput", "label": "Name"}, f"selector asked: {read}")
            miss = sc(await call("invoke_action", {"node": {"role": "Button", "label": "Save file"}, "action": "click"}, ok=False))  # 6 the miss
            check(miss.get("code") == "NOT_FOUND", f"the miss: {miss}")
            save = sc(await call("find_node", {"role": "Button", "label": "Save"}))["node"]  # 7
            await call("invoke_action", {"node": save, "action": "click"})           # 8 the corrected retry
            await call("assert_node", {"node": {"role": "Label", "value": "Saved"}, "kind": "exists"})  # 9
            await call("pull_announcements", {})                                      # 10 explore
            await call("screenshot", {"max_dimension": 256})                          # 11
            await call("list_windows", {})                                            # 12 explore
            check(len(calls) == 12, f"{len(calls)} calls")
            plain = sc(await s.call_tool("find_node", {"role": "Button", "label": "Save"}))
            check("selector" not in plain, f"a selector nobody asked for: {plain}")

            out = {"calls": len(calls) + 1, "exports": {}}
            for fmt in ("ts", "yaml", "json"):
                r = await s.call_tool("export_test", {"format": fmt, "name": "save a name", "to": 12})
                check(not err(r), f"export {fmt}: {sc(r)}")
                data = sc(r)
                path = os.path.join(out_dir, f"exported.{fmt}")
                with open(path, "w") as f:
                    f.write(data["source"])
                out["exports"][fmt] = {"path": path, "source": data["source"], "left_out": data["left_out"],
                                       "steps": data["steps"], "calls": data["calls"], "inputs": data["inputs"]}
            saved = await s.call_tool("export_test", {"format": "yaml", "save_to": os.path.join(out_dir, "saved.yaml"), "to": 12})
            check(not err(saved) and sc(saved).get("path", "").endswith("saved.yaml"), f"save_to: {sc(saved)}")
            again = await s.call_tool("export_test", {"format": "yaml", "save_to": os.path.join(out_dir, "saved.yaml")})
            check(err(again) and "already exists" in sc(again).get("message", ""), f"save_to twice: {sc(again)}")
            bad = await s.call_tool("export_test", {"format": "python"})
            check(err(bad) and sc(bad).get("code") == "BAD_REQUEST", f"bad format: {sc(bad)}")
            return out


def main() -> None:
    binary, out_dir = sys.argv[1], sys.argv[2]
    out = asyncio.run(explore(binary, out_dir))
    for fmt, e in out["exports"].items():
        run = subprocess.run([binary, "run", e["path"]], capture_output=True, text=True, timeout=300,
                             stdin=subprocess.DEVNULL)
        e["run_exit"] = run.returncode
        e["run_output"] = run.stdout[-2000:] + run.stderr[-2000:]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
