//! Helpers shared by the test suites: an in-process MCP client and process-table scans.

#![allow(dead_code)] // each suite uses a different part

use std::time::{Duration, Instant};

use deft_backend_shell::{ShellPolicy, ShellServer};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

pub type Client = RunningService<RoleClient, ()>;

/// Serves a `ShellServer` over one half of a duplex pipe and connects a client to the other.
pub async fn connect(policy: ShellPolicy) -> Client {
    serve(ShellServer::new(policy)).await
}

/// Serves `server` over one half of a duplex pipe and connects a client to the other.
pub async fn serve(server: ShellServer) -> Client {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        match server.serve(server_io).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => panic!("server failed to start: {e}"),
        }
    });
    ().serve(client_io).await.expect("client connects")
}

/// Calls a tool with JSON arguments.
pub async fn call(client: &Client, tool: &'static str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
        .await
        .expect("call_tool answers")
}

/// The single text block of a result.
pub fn text(result: &CallToolResult) -> &str {
    assert_eq!(result.content.len(), 1, "one content block: {result:?}");
    &result.content[0].as_text().expect("text content").text
}

/// The structured content of a successful result.
pub fn structured(result: &CallToolResult) -> &Value {
    assert_eq!(result.is_error, Some(false), "success expected: {result:?}");
    result
        .structured_content
        .as_ref()
        .expect("structured content")
}

/// Live (non-zombie) processes whose process group is `pgid`.
pub fn live_members(pgid: u32) -> Vec<u32> {
    processes()
        .into_iter()
        .filter(|p| p.pgid == pgid && p.state != 'Z')
        .map(|p| p.pid)
        .collect()
}

/// Live (non-zombie) processes whose command line contains `needle`.
pub fn live_with_cmdline(needle: &str) -> Vec<u32> {
    processes()
        .into_iter()
        .filter(|p| p.state != 'Z' && p.cmdline.contains(needle))
        .map(|p| p.pid)
        .collect()
}

/// Polls `probe` until it returns an empty list or `within` passes; returns the last answer.
pub async fn until_empty(within: Duration, probe: impl Fn() -> Vec<u32>) -> Vec<u32> {
    let start = Instant::now();
    loop {
        let left = probe();
        if left.is_empty() || start.elapsed() > within {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

struct Proc {
    pid: u32,
    pgid: u32,
    state: char,
    cmdline: String,
}

fn processes() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
            let after = &stat[stat.rfind(')')? + 1..];
            let mut fields = after.split_whitespace();
            let state = fields.next()?.chars().next()?;
            let _ppid = fields.next()?;
            let pgid: u32 = fields.next()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline"))
                .map(|raw| String::from_utf8_lossy(&raw).replace('\0', " "))
                .unwrap_or_default();
            Some(Proc {
                pid,
                pgid,
                state,
                cmdline,
            })
        })
        .collect()
}
