"""Interop check: the official Python MCP SDK (2.x) lists and calls `deft mcp shell` tools,
over stdio and over streamable HTTP (with a bearer token).

Usage: python mcp_client.py /path/to/deft
Prints one line per transport and exits non-zero on the first mismatch.
"""

import asyncio
import os
import re
import select
import subprocess
import sys
import threading
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


def bound_url(server: subprocess.Popen, seconds: float) -> str:
    """The URL `deft mcp … --http 127.0.0.1:0` prints on stderr once it listens (no port race)."""
    until = time.monotonic() + seconds
    seen = []
    while time.monotonic() < until:
        ready, _, _ = select.select([server.stderr], [], [], max(0.0, until - time.monotonic()))
        if not ready:
            break
        line = server.stderr.readline()
        if not line:
            raise RuntimeError(f"deft mcp exited before listening: {''.join(seen)}")
        seen.append(line)
        m = re.search(r"at (http://\S+/mcp)", line)
        if m:
            # Keep reading what it logs from now on, so a full pipe never blocks it.
            threading.Thread(target=server.stderr.read, daemon=True).start()
            return m.group(1)
    raise RuntimeError(f"deft mcp did not say where it listens within {seconds} s: {''.join(seen)}")


async def over_stdio(deft: str) -> None:
    params = StdioServerParameters(command=deft, args=["mcp", "shell"])
    async with Client(params) as client:
        await exercise(client, "stdio")


async def over_http(deft: str) -> None:
    token = "interop-token-" + os.urandom(8).hex()
    # The token through the environment: a command line is visible to every process (ps).
    server = subprocess.Popen(
        [deft, "mcp", "shell", "--http", "127.0.0.1:0"],
        env={**os.environ, "DEFT_MCP_TOKEN": token},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = bound_url(server, 20)
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
