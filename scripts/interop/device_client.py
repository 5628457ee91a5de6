"""Interop check: the official Python MCP SDK (2.x) drives a whole device through `deft mcp device`.

Usage: python device_client.py MODE /path/to/deft DATA_DIR DOCS_DIR
       python device_client.py http MODE URL
       python device_client.py approvals MODE /path/to/deft DATA_DIR
MODE is the SDK's connect mode: `auto` (a 2026-era client: tool-list changes on a
`subscriptions/listen` stream) or `legacy` (the initialize handshake: changes as session
notifications). The managed desktop of DATA_DIR must run; DOCS_DIR is the documents folder.
`http` drives the same flow over streamable HTTP against a running `deft serve`'s device
endpoint URL (`http://HOST:PORT/mcp/devices/local`), with `Authorization: Bearer
$DEFT_MCP_BEARER` (the server's API token or a named token with devices:exec); the server's
documents folder is where the document is saved.

The client sees the HostAgent's tools only, is told clearly what to select when it calls
Writer's insert_table too early, launches Writer and selects its window, hears
`notifications/tools/list_changed`, finds insert_table among the tools, inserts a table by API,
clicks into its first cell and types by GUI, and saves the document as .docx. Prints one JSON
line (the saved path, the typed text, the protocol version); exits non-zero on a mismatch.

`approvals` checks run_shell, which needs a person's approval: refused with a clear text for a
client without elicitation, asked through the SDK's elicitation callback otherwise (a server
request, or an input-required result the SDK answers and retries), run only on a yes.
"""

import asyncio
import contextlib
import json
import os
import sys

from mcp import Client, StdioServerParameters, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

TYPED = "Grüße 北京"


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def tool_names(client) -> list[str]:
    return sorted(t.name for t in (await client.list_tools()).tools)


def stdio_device(deft: str, data: str, docs: str) -> StdioServerParameters:
    """`deft mcp device local` as a child process over stdio."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "DEFT_TOOLS_CONFIG")}
    env["DEFT_DOCUMENT_DIRS"] = docs
    return StdioServerParameters(command=deft, args=["--data-dir", data, "mcp", "device", "local"], env=env)


@contextlib.asynccontextmanager
async def http_device(url: str):
    """A running server's device endpoint over streamable HTTP, with the Bearer token."""
    headers = {"Authorization": f"Bearer {os.environ['DEFT_MCP_BEARER']}"}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            yield streams


async def main(mode: str, params) -> None:
    changed = asyncio.Event()

    async def on_message(message) -> None:
        if isinstance(getattr(message, "root", message), types.ToolListChangedNotification):
            changed.set()

    async with Client(params, mode=mode, message_handler=on_message) as client:
        names = await tool_names(client)
        for expected in ("get_desktop_app_info", "select_application_window", "launch_app", "run_shell"):
            assert expected in names, f"{expected} missing from {names}"
        assert "insert_table" not in names, names
        assert "list_tools" not in names, names

        # An application's tool before its window is selected: a clear error naming what to do.
        r = await client.call_tool("insert_table", {"rows": 2, "columns": 2})
        assert r.is_error, r
        why = text_of(r)
        assert "select_application_window" in why and "libreoffice-writer" in why, why

        r = await client.call_tool("launch_app", {"app": "libreoffice-writer"})
        assert not r.is_error, text_of(r)
        window = r.structured_content["window"]
        select = {"id": window["id"], "name": window["name"]}

        if client.protocol_version >= "2026-07-28":
            async with client.listen(tools_list_changed=True) as sub:
                r = await client.call_tool("select_application_window", select)
                assert not r.is_error, text_of(r)
                event = await asyncio.wait_for(sub.__anext__(), 60)
                assert type(event).__name__ == "ToolsListChanged", event
        else:
            r = await client.call_tool("select_application_window", select)
            assert not r.is_error, text_of(r)
            await asyncio.wait_for(changed.wait(), 60)
        assert r.structured_content["root_name"] == "libreoffice-writer", r.structured_content

        names = await tool_names(client)
        for expected in ("insert_table", "set_font", "save_as", "click_input", "keyboard_input"):
            assert expected in names, f"{expected} missing after the selection: {names}"

        # API: a table. GUI: into its first cell, and typing there.
        r = await client.call_tool("insert_table", {"rows": 2, "columns": 2})
        assert not r.is_error, text_of(r)
        r = await client.call_tool(
            "wait_for_control", {"selector": {"text": "A1", "type": "cell", "match": "exact"}}
        )
        assert not r.is_error and r.structured_content["appeared"], text_of(r)
        cell = r.structured_content["control"]["id"]
        r = await client.call_tool("click_input", {"id": cell, "name": "A1"})
        assert not r.is_error, text_of(r)
        r = await client.call_tool("keyboard_input", {"id": cell, "name": "A1", "keys": TYPED})
        assert not r.is_error, text_of(r)

        r = await client.call_tool("save_as", {"file_name": "mcp-report", "file_ext": "docx"})
        assert not r.is_error, text_of(r)
        path = r.structured_content["path"]
        print(json.dumps({"path": path, "typed": TYPED, "protocol": client.protocol_version}, ensure_ascii=False))


async def approvals(mode: str, deft: str, data: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "DEFT_TOOLS_CONFIG")}
    params = StdioServerParameters(command=deft, args=["--data-dir", data, "mcp", "device"], env=env)
    shell = {"command": "uname -s"}
    protocols = set()

    async with Client(params, mode=mode) as client:
        protocols.add(client.protocol_version)
        r = await client.call_tool("run_shell", shell)
        assert r.is_error, r
        assert "cannot ask one (it does not support elicitation)" in text_of(r), text_of(r)

    for answer in (False, True):
        asked = []

        async def person(context, params, answer=answer, asked=asked):
            asked.append(params.message)
            if answer:
                return types.ElicitResult(action="accept", content={"approve": True})
            return types.ElicitResult(action="decline")

        async with Client(params, mode=mode, elicitation_callback=person) as client:
            r = await client.call_tool("run_shell", shell)
            assert len(asked) == 1 and "run_shell" in asked[0], asked
            if answer:
                assert not r.is_error and "Linux" in text_of(r), text_of(r)
            else:
                assert r.is_error and text_of(r) == "run_shell was not approved; nothing was run", text_of(r)
    print(json.dumps({"approvals": "checked", "protocol": sorted(protocols)[0]}))


if __name__ == "__main__":
    if sys.argv[1] == "approvals":
        asyncio.run(approvals(*sys.argv[2:5]))
    elif sys.argv[1] == "http":
        asyncio.run(main(sys.argv[2], http_device(sys.argv[3])))
    else:
        asyncio.run(main(sys.argv[1], stdio_device(*sys.argv[2:5])))
