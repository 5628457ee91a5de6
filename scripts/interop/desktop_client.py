"""Interop check: the official Python MCP SDK (2.x) drives `deft mcp desktop` over stdio.

Usage: python desktop_client.py /path/to/deft /path/to/desktop.json
The managed desktop of that state file must run, with the project's GTK3 form app on it. The
server finds the desktop from the state file alone (DISPLAY is removed from its environment).
The client lists the tools, finds and selects the form app's window, reads its controls, types a
name with set_edit_text and clicks Submit. Prints one summary line; exits non-zero on a mismatch.
"""

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters

NAME = "Ada Lovelace ü 苏州"


def control_id(listing: str, kind: str, name: str) -> str:
    quoted = json.dumps(name, ensure_ascii=False)
    for line in listing.splitlines():
        parts = line.lstrip("*").split(" ", 2)
        if len(parts) == 3 and parts[1] == kind and (parts[2] == quoted or parts[2].startswith(quoted + " ")):
            return parts[0]
    raise AssertionError(f"no {kind} {name!r} in listing:\n{listing}")


async def main(deft: str, state_file: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "AT_SPI_BUS_ADDRESS")}
    options = json.dumps({"state_file": state_file})
    params = StdioServerParameters(command=deft, args=["mcp", "desktop", "--options", options], env=env)
    async with Client(params) as client:
        listed = await client.list_tools()
        names = sorted(t.name for t in listed.tools)
        for expected in ("get_desktop_app_info", "get_app_window_controls_info", "click_input",
                         "set_edit_text", "keyboard_input", "capture_window_screenshot", "launch_app"):
            assert expected in names, f"{expected} missing from {names}"
        wait = next(t for t in listed.tools if t.name == "wait")
        assert wait.meta and wait.meta.get("deft/timeout_secs") == 310, wait.meta  # 300 s of waiting + 10 to answer

        window = None
        for _ in range(100):
            r = await client.call_tool("get_desktop_app_info", {})
            assert not r.is_error, r
            window = next((w for w in r.structured_content["windows"] if w["app"] == "form_app.py"), None)
            if window:
                break
            await asyncio.sleep(0.1)
        assert window, "the form app's window was not listed"

        r = await client.call_tool("select_application_window", {"id": window["id"], "name": window["name"]})
        assert not r.is_error, r
        assert r.structured_content["root_name"] == "form_app.py", r.structured_content

        r = await client.call_tool("get_app_window_controls_info", {})
        assert not r.is_error, r
        listing = r.content[0].text
        name_id = control_id(listing, "edit", "Name")
        submit_id = control_id(listing, "button", "Submit")

        r = await client.call_tool("set_edit_text", {"id": name_id, "name": "Name", "text": NAME})
        assert not r.is_error, r
        assert r.structured_content["effect"] == "changed", r.structured_content

        r = await client.call_tool("click_input", {"id": submit_id, "name": "Submit"})
        assert not r.is_error, r
        assert r.structured_content["effect"] == "changed", r.structured_content

        r = await client.call_tool("click_input", {"id": "9999", "name": "nothing"})
        assert r.is_error, r
        assert r.content[0].text.startswith("Control id 9999 is not in the control list"), r.content[0].text

        r = await client.call_tool("capture_window_screenshot", {})
        assert not r.is_error, r
        images = [c for c in r.content if c.type == "image"]
        assert images and images[0].mime_type == "image/png", r.content
        print(f"desktop: listed {len(names)} tools, form submitted")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
