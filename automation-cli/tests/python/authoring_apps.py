"""Issue 24's second proof, on real GTK3 apps through the official Python `mcp` SDK: an agent's
session on `--launch … --virtual-display` (check a box, move a slider, type into an entry, check
each) exported with `export_test`, then run by `automation run` against a fresh launch.

Usage: python authoring_apps.py PATH_TO_AUTOMATION OUT_DIR SCENARIO
  SCENARIO widget-factory: gtk3-widget-factory; both exports (ts, yaml) must pass.
  SCENARIO order-form: order_form.py; the TypeScript export passes against the form as
  shipped and fails against the renamed build with NOT_FOUND, its candidates and the exported
  file's line.
Prints one JSON line with the sources and each run's exit code and output.
"""

import asyncio
import json
import os
import subprocess
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_client import check, err, sc

HERE = os.path.dirname(os.path.abspath(__file__))
FORM = f"/usr/bin/python3 {HERE}/order_form.py"


async def session(binary, launch, calls):
    params = StdioServerParameters(command=binary, args=["--launch", launch, "--virtual-display"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            refs = {}
            for n, (name, args, keep) in enumerate(calls, 1):
                args = {k: refs.get(v, v) if isinstance(v, str) else v for k, v in args.items()}
                r = await s.call_tool(name, args)
                check(not err(r), f"call {n} {name} {args}: {sc(r)}")
                if keep:
                    refs[keep] = sc(r)["node"]
            exports = {}
            for fmt in ("ts", "yaml"):
                r = await s.call_tool("export_test", {"format": fmt, "name": "order"})
                check(not err(r), f"export {fmt}: {sc(r)}")
                exports[fmt] = sc(r)
            return exports


def run(binary, launch, path):
    r = subprocess.run([binary, "run", "--launch", launch, "--virtual-display", path],
                       capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    return {"exit": r.returncode, "output": r.stdout[-4000:] + r.stderr[-4000:]}


def main() -> None:
    binary, out_dir, scenario = sys.argv[1], sys.argv[2], sys.argv[3]
    if scenario == "widget-factory":
        launch = "gtk3-widget-factory"
        calls = [
            # The fifth "checkbutton" on page 1 is enabled and off.
            ("find_node", {"role": "CheckBox", "label": "checkbutton", "nth": 4}, "box"),
            ("invoke_action", {"node": "box", "action": "click"}, None),
            ("assert_node", {"node": "box", "kind": "toggled", "flag": True}, None),
            ("find_node", {"role": "Slider"}, "slider"),
            ("set_value", {"node": "slider", "value": 75}, None),
            ("read_node", {"node": "slider"}, None),
            ("find_node", {"role": "TextInput", "value": "entry", "nth": 1}, "entry"),
            ("set_value", {"node": "entry", "value": ""}, None),
            ("type_text", {"node": "entry", "text": "hello"}, None),
            ("assert_node", {"node": "entry", "kind": "value_equals", "value": "hello"}, None),
        ]
    else:
        launch = FORM
        calls = [
            ("find_node", {"role": "CheckBox", "label": "Gift wrap"}, "wrap"),
            ("invoke_action", {"node": "wrap", "action": "click"}, None),
            ("assert_node", {"node": "wrap", "kind": "toggled", "flag": True}, None),
            ("set_value", {"node": {"role": "Slider", "label": "Quantity"}, "value": 3}, None),
            ("find_node", {"role": "TextInput", "label": "Name"}, "name"),
            ("type_text", {"node": "name", "text": "Ada"}, None),
            ("assert_node", {"node": "name", "kind": "value_equals", "value": "Ada"}, None),
            ("invoke_action", {"node": {"role": "Button", "label": "Order"}, "action": "click"}, None),
            ("find_node", {"role": "Label", "label_contains": "Ordered"}, None),
            ("read_node", {"node": {"role": "Label", "label": "Ordered 3 for Ada (wrapped)"}}, None),
        ]
    exports = asyncio.run(session(binary, launch, calls))
    out = {}
    for fmt, data in exports.items():
        path = os.path.join(out_dir, f"{scenario}.{fmt}")
        with open(path, "w") as f:
            f.write(data["source"])
        out[fmt] = {"path": path, "source": data["source"], "left_out": data["left_out"],
                    "fresh": run(binary, launch, path)}
    if scenario == "order-form":
        out["ts"]["renamed"] = run(binary, f"{FORM} --renamed", out["ts"]["path"])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
