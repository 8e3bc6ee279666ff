"""A real third-party MCP client (the Python `mcp` SDK) driving `automation --headless`.

Usage: python mcp_client.py PATH_TO_AUTOMATION EXPECTED_TOOL_COUNT
Exits 0 and prints "ok" when every check passed; raises (exit 1) otherwise.
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def g(obj, snake, camel):
    """The field under the SDK's spelling (2.x snake_case, 1.x camelCase)."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def err(r):
    return bool(g(r, "is_error", "isError"))


def sc(r):
    return g(r, "structured_content", "structuredContent") or {}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


async def main(binary: str, expected_tools: int) -> None:
    params = StdioServerParameters(command=binary, args=["--headless"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check("snapshot" in (init.instructions or ""), "instructions explain the pattern")

            tools = (await session.list_tools()).tools
            check(len(tools) == expected_tools, f"{len(tools)} tools, expected {expected_tools}")
            by_name = {t.name: t for t in tools}
            find = by_name["find_node"]
            check(g(find, "input_schema", "inputSchema").get("additionalProperties") is False, "strict schema")
            check(find.annotations is not None and g(find.annotations, "read_only_hint", "readOnlyHint") is True, "read-only hint")
            # Absent means false (the spec's default), so mutating tools leave it out.
            check(g(by_name["invoke_action"].annotations, "read_only_hint", "readOnlyHint") in (None, False), "mutating hint")
            check(g(by_name["invoke_action"].annotations, "destructive_hint", "destructiveHint") is False, "not destructive")

            snap = await session.call_tool("snapshot_tree", {})
            check(not err(snap), f"snapshot: {snap}")

            found = await session.call_tool("find_node", {"role": "Button", "label": "Save"})
            check(not err(found), f"find_node: {found}")
            node = sc(found)["node"]
            check(isinstance(node, str), "node ids are strings")

            clicked = await session.call_tool("invoke_action", {"node": node, "action": "click"})
            check(not err(clicked), f"click: {clicked}")

            pulled = await session.call_tool("pull_announcements", {})
            texts = [a.get("text") for a in sc(pulled).get("announcements", [])]
            check("Saved" in texts, f"announcements: {texts}")

            bad = await session.call_tool("find_node", {"lable": "Save"})
            check(err(bad), "an unknown argument is an isError result")
            check(sc(bad)["code"] == "BAD_REQUEST", f"{sc(bad)}")
            check("lable" in sc(bad)["message"], "the error names the field")

            amb = await session.call_tool("invoke_action", {"node": {"role": "Button"}, "action": "click"})
            check(err(amb) and sc(amb)["code"] == "AMBIGUOUS", f"{sc(amb)}")
            check(len(sc(amb).get("candidates", [])) > 1, "candidates listed")

    print("ok", len(tools))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
