//! stdio children and streamable HTTP servers behind the tool layer.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

mod common;

use std::time::Duration;

use common::*;
use deft_protocol::ResultStatus;
use deft_test_support::fixture::FixtureServer;
use deft_test_support::proc::{fixture_bin, is_alive, kill_group, wait_group_gone};
use deft_tools::Dispatcher;
use deft_tools::builtin::Builtin;
use serde_json::json;

fn stdio_yaml() -> String {
    format!(
        r#"
timeouts: {{tool_default_secs: 30, grace_secs: 0, batch_secs: 60}}
profiles:
  test:
    HostAgent:
      default:
        action:
          - {{namespace: child, type: stdio, command: "{}"}}
"#,
        fixture_bin().display()
    )
}

async fn pid_of(d: &deft_tools::LocalDispatcher) -> i32 {
    let r = d.execute(&ctx(), vec![act("pid", json!({}))]).await;
    r[0].result["pid"]
        .as_i64()
        .unwrap_or_else(|| panic!("{r:?}")) as i32
}

#[tokio::test]
async fn stdio_server_killed_mid_batch_fails_then_restarts() {
    let (d, _) = dispatcher(&stdio_yaml());
    let first = pid_of(&d).await;
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        kill_group(first);
    });
    let r = d
        .execute(
            &ctx(),
            vec![
                act("sleep", json!({"ms": 20_000})).with_call_id("k"),
                noop(),
            ],
        )
        .await;
    assert_eq!(r[0].status, ResultStatus::Failure);
    assert_eq!(r[0].call_id, "k");
    assert_eq!(
        r[0].error.as_deref(),
        Some(
            "Tool sleep execution failed: the tool server 'child' stopped during the call; it will be restarted on the next call. Observe the current state, then retry or execute a different command."
        )
    );
    assert_eq!(r[1].status, ResultStatus::Skipped);
    // The next batch restarts the server.
    let second = pid_of(&d).await;
    assert_ne!(first, second);
    let r = d.execute(&ctx(), vec![noop()]).await;
    assert_eq!(r[0].status, ResultStatus::Success);
}

#[tokio::test]
async fn stdio_server_process_group_dies_with_the_session() {
    let (d, _) = dispatcher(&stdio_yaml());
    let pid = pid_of(&d).await;
    assert!(is_alive(pid));
    drop(d);
    // Wait off the runtime: the kill runs as a task on it.
    let gone = tokio::task::spawn_blocking(move || wait_group_gone(pid, Duration::from_secs(5)))
        .await
        .unwrap();
    assert!(gone, "stdio server {pid} outlived its session");
}

#[tokio::test]
async fn stdio_tool_timeout_fails_and_the_server_keeps_serving() {
    let yaml = stdio_yaml().replace("command: ", "timeouts: {sleep: 0.2}, command: ");
    let (d, _) = dispatcher(&yaml);
    let r = d
        .execute(&ctx(), vec![act("sleep", json!({"ms": 10_000}))])
        .await;
    assert!(
        r[0].error
            .as_deref()
            .unwrap()
            .starts_with("Tool sleep execution timed out after 0.2 s"),
        "{r:?}"
    );
    let r = d.execute(&ctx(), vec![noop()]).await;
    assert_eq!(r[0].status, ResultStatus::Success);
}

async fn serve_fixture_http(
    token: Option<&str>,
) -> (std::net::SocketAddr, tokio_util::sync::CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    let s = stop.clone();
    let token = token.map(str::to_owned);
    tokio::spawn(async move {
        let factory = Builtin::new("fixture", "", |_| Ok(FixtureServer::new()));
        deft_tools::host::serve_http(
            &factory,
            &serde_json::Value::Null,
            listener,
            token,
            async move { s.cancelled().await },
        )
        .await
        .unwrap();
    });
    (addr, stop)
}

fn http_yaml(addr: std::net::SocketAddr, headers: &str) -> String {
    format!(
        r#"
timeouts: {{tool_default_secs: 30, grace_secs: 0, batch_secs: 60}}
profiles:
  test:
    HostAgent:
      default:
        data_collection:
          - {{namespace: web, type: http, url: "http://{addr}/mcp"{headers}}}
"#
    )
}

#[tokio::test]
async fn http_server_tools_are_called_like_any_other() {
    let (addr, stop) = serve_fixture_http(None).await;
    let (d, _) = dispatcher(&http_yaml(addr, ""));
    let r = d
        .execute(
            &ctx(),
            vec![
                cmd("echo", json!({"text": "über"})),
                cmd("image", json!({})),
            ],
        )
        .await;
    assert_eq!(r[0].result, json!({"text": "über"}), "{r:?}");
    assert_eq!(r[0].namespace.as_deref(), Some("web"));
    assert_eq!(r[1].images.len(), 1);
    stop.cancel();
}

/// A refused request's body is never read, so the server closes that connection and says so
/// (`Connection: close`): a keep-alive client's next request goes on a new connection instead
/// of into a closed socket (the official Python SDK's pool hit that under load).
#[tokio::test]
async fn a_refused_request_closes_its_connection_and_says_so() {
    let (addr, stop) = serve_fixture_http(Some("tok-123")).await;
    let client = reqwest::Client::new();
    let url = format!("http://{addr}/mcp");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    for _ in 0..20 {
        let denied = client.post(&url).body(body.clone()).send().await.unwrap();
        assert_eq!(denied.status(), 401);
        assert_eq!(denied.headers()["connection"], "close");
        let forbidden = client
            .post(&url)
            .header("host", "evil.example")
            .header("authorization", "Bearer tok-123")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(forbidden.status(), 403);
    }
    stop.cancel();
}

/// `Host` and `Origin` are parsed, not matched as text: a port with a domain after it, two
/// `Host` headers and an origin whose "port" runs into another domain are refused, each with
/// its text (fails with the old text match, which took them for localhost).
#[tokio::test]
async fn host_and_origin_tricks_are_refused() {
    let (addr, stop) = serve_fixture_http(None).await;
    let port = addr.port();
    let post = "POST /mcp HTTP/1.1\r\nContent-Length: 0\r\n";
    for (head, status, text) in [
        (
            format!("{post}Host: localhost:{port}.evil.example\r\n"),
            400,
            deft_tools::texts::HOST_MALFORMED,
        ),
        (
            format!("{post}Host: localhost:{port}\r\nHost: evil.example\r\n"),
            400,
            deft_tools::texts::HOST_DUPLICATE,
        ),
        (
            format!(
                "{post}Host: localhost:{port}\r\nOrigin: http://127.0.0.1:{port}.evil.example\r\n"
            ),
            403,
            deft_tools::texts::CROSS_ORIGIN,
        ),
        (
            format!("{post}Host: localhost.evil.example:{port}\r\n"),
            403,
            deft_tools::texts::HOST_FOREIGN,
        ),
    ] {
        let (got, body) = deft_test_support::net::raw_http(addr, &head).await;
        assert_eq!((got, body.as_str()), (status, text), "{head}");
    }
    stop.cancel();
}

#[tokio::test]
async fn http_server_with_a_token_needs_it() {
    let (addr, stop) = serve_fixture_http(Some("tok-123")).await;
    let (good, _) = dispatcher(&http_yaml(
        addr,
        ", headers: {Authorization: Bearer tok-123}",
    ));
    let r = good
        .execute(&ctx(), vec![cmd("echo", json!({"text": "a"}))])
        .await;
    assert_eq!(r[0].status, ResultStatus::Success, "{r:?}");
    let (bad, _) = dispatcher(&http_yaml(addr, ""));
    let r = bad
        .execute(&ctx(), vec![cmd("echo", json!({"text": "a"}))])
        .await;
    assert_eq!(r[0].status, ResultStatus::Failure);
    let computer = bad
        .router("test")
        .unwrap()
        .manager()
        .get_or_create("HostAgent", "", "")
        .await
        .unwrap();
    assert!(
        computer.warnings()[0].contains("tool server 'web' at http://"),
        "{:?}",
        computer.warnings()
    );
    stop.cancel();
}

#[tokio::test]
async fn serving_beyond_loopback_without_a_token_is_refused() {
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let factory = Builtin::new("fixture", "", |_| Ok(FixtureServer::new()));
    let e =
        deft_tools::host::serve_http(&factory, &serde_json::Value::Null, listener, None, async {})
            .await
            .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("refusing to serve MCP on 0.0.0.0:"),
        "{e}"
    );
    assert!(
        e.to_string().ends_with("needs --token (or DEFT_MCP_TOKEN)"),
        "{e}"
    );
}

/// The variables of process `pid`'s environment.
fn environ(pid: i32) -> std::collections::BTreeMap<String, String> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    raw.split(|b| *b == 0)
        .filter_map(|kv| {
            String::from_utf8_lossy(kv)
                .split_once('=')
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
        })
        .collect()
}

#[tokio::test]
async fn a_stdio_server_of_a_device_with_its_own_environment_gets_it() {
    let (builtins, _) = registry();
    let mut builtins = (*builtins).clone();
    builtins.with_device_env(std::sync::Arc::new(|| {
        vec![
            ("DISPLAY".to_owned(), ":77".to_owned()),
            ("HOME".to_owned(), "/srv/desk/home".to_owned()),
        ]
    }));
    let table = deft_tools::table::RoutingTable::parse(&stdio_yaml(), "test.yaml").unwrap();
    let d =
        deft_tools::LocalDispatcher::new(std::sync::Arc::new(table), std::sync::Arc::new(builtins));
    let env = environ(pid_of(&d).await);
    assert_eq!(
        env.get("DISPLAY").map(String::as_str),
        Some(":77"),
        "{env:?}"
    );
    assert_eq!(
        env.get("HOME").map(String::as_str),
        Some("/srv/desk/home"),
        "{env:?}"
    );
    // The caller's session, where the device defines none, is not passed on.
    for gone in [
        "WAYLAND_DISPLAY",
        "DBUS_SESSION_BUS_ADDRESS",
        "XDG_RUNTIME_DIR",
    ] {
        assert!(!env.contains_key(gone), "{gone} in {env:?}");
    }
    assert!(env.contains_key("PATH"), "the rest is inherited: {env:?}");
}
