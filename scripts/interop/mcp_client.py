"""Interop check: the official Python MCP SDK (2.x) lists and calls `deft mcp shell` tools,
over stdio and over streamable HTTP (with a bearer token).

Usage: python mcp_client.py /path/to/deft
Prints one line per transport and exits non-zero on the first mismatch.
"""

import asyncio
import os
import socket
import subprocess
import sys
import time

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def exercise(client: Client, label: str) -> None:
    listed = await client.list_tools()
    names = sorted(t.name for t in listed.tools)
    assert names == ["get_system_info", "run_shell"], f"{label}: tools {names}"
    run_shell = next(t for t in listed.tools if t.name == "run_shell")
    assert run_shell.meta and run_shell.meta.get("deft/timeout_secs") == 120, run_shell.meta
    assert "command" in run_shell.input_schema["properties"], run_shell.input_schema

    r = await client.call_tool("run_shell", {"command": "echo 'interop works' ü"})
    assert not r.is_error, r
    assert r.structured_content["stdout"] == "interop works ü\n", r.structured_content
    assert r.structured_content["exit_code"] == 0

    r = await client.call_tool("run_shell", {"command": "echo a | cat"})
    assert r.is_error, r
    assert "Refused" in r.content[0].text and "'|'" in r.content[0].text, r.content[0].text

    r = await client.call_tool("get_system_info", {})
    assert not r.is_error, r
    assert r.structured_content["cpus"] >= 1, r.structured_content
    print(f"{label}: listed {len(names)} tools, 3 calls checked")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, seconds: float) -> None:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"deft mcp did not listen on port {port} within {seconds} s")


async def over_stdio(deft: str) -> None:
    params = StdioServerParameters(command=deft, args=["mcp", "shell"])
    async with Client(params) as client:
        await exercise(client, "stdio")


async def over_http(deft: str) -> None:
    port = free_port()
    token = "interop-token-" + os.urandom(8).hex()
    server = subprocess.Popen([deft, "mcp", "shell", "--http", f"127.0.0.1:{port}", "--token", token])
    try:
        wait_for_port(port, 20)
        url = f"http://127.0.0.1:{port}/mcp"
        # Without the token the server answers 401 and serves nothing.
        async with httpx2.AsyncClient() as raw:
            denied = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
            assert denied.status_code == 401, denied.status_code
            rebinding = await raw.post(url, headers={"Host": "evil.example", "Authorization": f"Bearer {token}"}, json={})
            assert rebinding.status_code == 403, rebinding.status_code
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with Client(streamable_http_client(url, http_client=http)) as client:
            await exercise(client, "http")
    finally:
        server.terminate()
        server.wait(10)


async def main() -> None:
    deft = sys.argv[1]
    await over_stdio(deft)
    await over_http(deft)


if __name__ == "__main__":
    asyncio.run(main())
