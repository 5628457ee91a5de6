"""Interop check: the official Python MCP SDK (2.x) drives `deft mcp browser` over stdio:
lists the tools, opens a fixture page, lists its controls, fills and submits a form with real
input, and reads the result back.

Usage: python browser_client.py /path/to/deft FORM_URL MARKER
FORM_URL is the fixture form page (served by the Rust test); MARKER is a unique flag passed to
Chromium so the caller can check that no browser process outlives the server.
Prints one summary line and exits non-zero on the first mismatch.
"""

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def id_of(listing: str, kind: str, name: str) -> str:
    needle = f" {kind} {json.dumps(name, ensure_ascii=False)}"
    for line in listing.splitlines():
        line = line.lstrip("*")
        head, _, rest = line.partition(" ")
        if f" {rest}".startswith(needle):
            return head
    raise AssertionError(f"no {kind} {name!r} in:\n{listing}")


async def main(deft: str, form_url: str, marker: str) -> None:
    options = json.dumps({"chromium_args": [f"--deft-test-marker={marker}"]})
    params = StdioServerParameters(
        command=deft, args=["mcp", "browser", "--options", options], env=dict(os.environ)
    )
    async with Client(params) as client:
        listed = await client.list_tools()
        names = {t.name for t in listed.tools}
        expected = {
            "get_desktop_app_info", "select_application_window", "get_app_window_controls_info",
            "click_input", "set_edit_text", "keyboard_input", "wheel_mouse_input", "texts",
            "select_option", "click_on_coordinates", "drag_on_coordinates",
            "capture_window_screenshot", "capture_desktop_screenshot", "wait", "summary",
            "navigate", "go_back", "go_forward", "reload", "new_tab", "close_tab",
            "get_page_text", "handle_dialog", "set_clipboard", "get_clipboard",
        }
        assert expected <= names, f"missing tools: {sorted(expected - names)}"
        wait = next(t for t in listed.tools if t.name == "wait")
        assert wait.meta and wait.meta.get("deft/timeout_secs") == 310, wait.meta  # 300 s of waiting + 10 to answer

        r = await client.call_tool("get_desktop_app_info", {"remove_empty": False})
        assert not r.is_error, text_of(r)
        tab = r.structured_content["windows"][0]["id"]
        r = await client.call_tool("select_application_window", {"id": tab})
        assert not r.is_error, text_of(r)
        r = await client.call_tool("navigate", {"url": form_url})
        assert not r.is_error, text_of(r)
        assert r.structured_content["root_name"] == "127.0.0.1", r.structured_content

        r = await client.call_tool("get_app_window_controls_info", {})
        assert not r.is_error, text_of(r)
        listing = text_of(r)
        assert listing.startswith("page "), listing
        name_id = id_of(listing, "edit", "Name")
        submit_id = id_of(listing, "button", "Submit")

        r = await client.call_tool("set_edit_text", {"id": name_id, "name": "Name", "text": "Grace Hopper"})
        assert not r.is_error and r.structured_content["effect"] == "changed", text_of(r)
        r = await client.call_tool("click_input", {"id": int(submit_id), "name": "Submit"})
        assert not r.is_error and r.structured_content["effect"] == "changed", text_of(r)
        r = await client.call_tool("get_page_text", {})
        page = text_of(r)
        assert "Hello, Grace Hopper (Red, small, not agreed)" in page, page
        assert "untrusted=0" in page, page

        r = await client.call_tool("click_input", {"id": "424242", "name": "Nothing"})
        assert r.is_error and "is unknown" in text_of(r), text_of(r)

        r = await client.call_tool("capture_window_screenshot", {"annotated": True})
        assert not r.is_error, text_of(r)
        assert any(getattr(c, "type", "") == "image" for c in r.content), r.content
    print(f"browser stdio: listed {len(names)} tools, form submitted with trusted input")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
