//! What the tool-server suites share: an in-process MCP client of an `AndroidServer` on a phone
//! of the harness, tool calls, and reading their answers.

#![allow(dead_code)] // each suite uses a part

use deft_backend_android::AndroidServer;
use deft_backend_android::phone::Phone;
use deft_test_support::adb_double::AdbHarness;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

/// An MCP client.
pub type Client = RunningService<RoleClient, ()>;

/// Serves `server` over one half of a duplex pipe and connects a client to the other.
pub async fn serve(server: AndroidServer) -> Client {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("client connects")
}

/// A client of a server on the harness's phone `i`.
pub async fn client_for(harness: &AdbHarness, i: usize) -> Client {
    let phone = Phone::new(harness.client(), harness.double(i).serial());
    serve(AndroidServer::for_phone(phone)).await
}

/// Calls `tool` with JSON arguments.
pub async fn call(client: &Client, tool: &'static str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
        .await
        .expect("call_tool answers")
}

/// The first text block of a result.
pub fn text(result: &CallToolResult) -> &str {
    &result.content[0].as_text().expect("text content").text
}

/// The structured content of a successful result.
pub fn ok(result: &CallToolResult) -> &Value {
    assert_eq!(result.is_error, Some(false), "success expected: {result:?}");
    result.structured_content.as_ref().expect("structured")
}

/// The text of an error result.
pub fn error(result: &CallToolResult) -> &str {
    assert_eq!(result.is_error, Some(true), "an error expected: {result:?}");
    text(result)
}

/// The text of a successful listing.
pub fn listing(result: &CallToolResult) -> &str {
    assert_eq!(
        result.is_error,
        Some(false),
        "a listing expected: {result:?}"
    );
    text(result)
}

/// The id `selector` picks on the screen now.
pub async fn find(client: &Client, selector: Value) -> String {
    let found = call(
        client,
        "find_controls",
        json!({"selector": selector, "format": "json"}),
    )
    .await;
    ok(&found)["chosen"]
        .as_str()
        .unwrap_or_else(|| panic!("{selector} found: {found:?}"))
        .to_owned()
}
