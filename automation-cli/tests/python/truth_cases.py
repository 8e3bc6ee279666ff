"""Issue 10's "Why" cases that answered `ok` while doing nothing or the wrong thing, through the
Python `mcp` SDK and the real `automation --headless --caps all`: each now acts, or fails typed.

Usage: python truth_cases.py PATH_TO_AUTOMATION
Exits 0 and prints "ok" when every check passed; raises otherwise.
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_client import check, err, sc


def text_of(r):
    return "".join(getattr(b, "text", "") for b in r.content)


async def main(binary: str) -> None:
    params = StdioServerParameters(command=binary, args=["--headless", "--caps", "all"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()

            async def ok(name, args):
                r = await session.call_tool(name, args)
                check(not err(r), f"{name} {args}: {sc(r) or text_of(r)}")
                return sc(r)

            async def fails(name, args, code):
                r = await session.call_tool(name, args)
                check(err(r), f"{name} {args} answered ok: {sc(r)}")
                e = sc(r)
                check(e.get("code") == code, f"{name} {args}: expected {code}, got {e}")
                return e

            # The default snapshot is a text outline whose references work.
            snap = await session.call_tool("snapshot_tree", {})
            tree = text_of(snap)
            check('Button "Row 3" [e' in tree, f"outline: {tree}")

            # A deleted row's reference is STALE, never a click on the row that took its id.
            row3 = (await ok("find_node", {"label": "Row 3"}))["node"]
            await ok("right_click", {"node": {"label": "Row 3"}})
            await ok("invoke_action", {"node": {"role": "Button", "label": "Delete"}, "action": "click"})
            e = await fails("invoke_action", {"node": row3, "action": "click"}, "STALE")
            check('"Row 4"' in e["message"], f"names what holds the id now: {e}")
            row4 = await ok("read_node", {"node": {"label": "Row 4"}})
            check(row4.get("toggled") is not True and row4.get("selected") is not True, f"Row 4 untouched: {row4}")
            gone = await ok("wait_for_condition", {"condition": {"kind": "node_gone", "node": row3}})
            check(gone["satisfied"] is True, f"node_gone on the stale reference: {gone}")

            # set_value refuses what the node cannot take, and shows the new value.
            await ok("expand", {"node": {"label": "Advanced"}})
            v = await ok("set_value", {"node": {"role": "Slider"}, "value": "75"})
            check(v.get("value") == 75.0, f"a number string on the slider is parsed: {v}")
            await fails("set_value", {"node": {"role": "Slider"}, "value": "loud"}, "BAD_ARGUMENT")
            await fails("set_value", {"node": {"label": "Name"}, "value": 42}, "BAD_ARGUMENT")

            # type_text without a node types into the focused window as a person would; on a
            # window that takes no keys nothing changes, and the reply says so. Into a button
            # it is an error naming it.
            e = await fails("type_text", {"text": "hello"}, "NO_EFFECT")
            check("focus" in e["message"], f"{e}")
            e = await fails("type_text", {"node": {"role": "Button", "label": "Save"}, "text": "x"}, "BAD_ARGUMENT")
            check("Save" in e["message"], f"{e}")

            # A pointer click on a row below the scroll area's edge scrolls it into view first.
            await ok("inject_pointer", {"node": {"label": "Row 18"}, "action": "click"})
            row18 = await ok("read_node", {"node": {"label": "Row 18"}})
            check(row18.get("toggled") is True or row18.get("selected") is True, f"the click reached Row 18: {row18}")
            await fails("inject_pointer", {"x": 5000, "y": 10, "action": "click"}, "BAD_ARGUMENT")

            # A Label is found by its text; an unknown role is an error with did-you-mean.
            await ok("invoke_action", {"node": {"role": "Button", "label": "Save"}, "action": "click"})
            found = await ok("find_node", {"label": "Saved"})
            check(found["record"]["role"] == "Label", f"{found}")
            e = await fails("find_node", {"role": "Labell", "label": "Saved"}, "BAD_ARGUMENT")
            check("Label" in (e.get("hint") or ""), f"{e}")
            miss = await ok("find_node", {"label": "Sav"})
            check(any(c.get("label") == "Save" for c in miss.get("candidates", [])), f"{miss}")

            # A failed assertion carries actual and expected as data.
            e = await fails("assert_node", {"node": {"label": "Remember me"}, "kind": "toggled", "flag": True}, "ASSERTION_FAILED")
            check(e.get("actual") is False and e.get("expected") is True, f"{e}")
            check("Some(" not in e["message"], f"{e}")

    print("ok")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
