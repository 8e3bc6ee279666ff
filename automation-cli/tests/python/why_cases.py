"""Issue 10's "Why" cases that an MCP client meets, through the Python `mcp` SDK and the real
`automation --headless --caps all`: Unicode typing arrives whole with a true key count,
`window_id` is an unknown argument on every tool, and a hint sent over MCP speaks MCP.

Usage: python why_cases.py PATH_TO_AUTOMATION
Exits 0 and prints "ok N" (N = tools checked) when every check passed; raises otherwise.
"""

import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_client import check, err, sc


async def main(binary: str) -> None:
    params = StdioServerParameters(command=binary, args=["--headless", "--caps", "all"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools

            text = "Zoë Ångström café"
            typed = await session.call_tool("type_text", {"node": {"role": "TextInput", "label": "Name"}, "text": text})
            check(not err(typed), f"type_text: {sc(typed)}")
            check(sc(typed).get("keys") == len(text), f"key count {sc(typed).get('keys')} for {len(text)} characters")
            field = await session.call_tool("read_node", {"node": {"role": "TextInput", "label": "Name"}})
            record = sc(field)
            got = record.get("value", (record.get("text") or {}).get("document_text"))
            check(got == text, f"the field holds {got!r}, expected {text!r}")

            for t in tools:
                r = await session.call_tool(t.name, {"window_id": "7"})
                check(err(r), f"{t.name} accepted window_id: {sc(r)}")
                e = sc(r)
                check(e.get("code") == "BAD_REQUEST", f"{t.name}: {e}")
                check("window_id" in e.get("message", ""), f"{t.name} does not name the field: {e}")
                hint = e.get("hint") or ""
                check("automation tools" not in hint, f"{t.name}: a CLI hint over MCP: {hint}")
                # Catalog tools point at tools/list; execute_sequence names its own arguments.
                if t.name != "execute_sequence":
                    check("tools/list" in hint, f"{t.name}: the hint does not point at tools/list: {hint}")

    print("ok", len(tools))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
