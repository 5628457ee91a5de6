//! `deft token` against a real `deft serve`: a token made on the command line prints its value
//! alone on stdout, reaches what its scopes name through the API and nothing else, is listed
//! with its calls, and stops working when `deft token revoke` revokes it; a bad scope is refused
//! with the server's text and a failing exit code; a token made from a console login names its
//! maker.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/console.rs"]
mod support;

use std::time::Duration;

use deft_test_support::TempDataDir;
use serde_json::json;
use support::{API_TOKEN, Auth, Serve, ServeOptions};

/// `deft token ARGS --server URL` with the API token in `DEFT_API_TOKEN`.
fn deft_token(serve: &Serve, args: &[&str]) -> std::process::Output {
    deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"))
        .arg("token")
        .args(args)
        .args(["--server", &serve.url])
        .env("DEFT_API_TOKEN", API_TOKEN)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn out(o: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_are_made_listed_used_and_revoked_from_the_command_line() {
    let dir = TempDataDir::new().unwrap();
    let serve = Serve::start(
        dir.path(),
        &ServeOptions::shell("http://127.0.0.1:9/v1", dir.path()),
    );

    let made = deft_token(
        &serve,
        &[
            "create",
            "nightly erp",
            "--scope",
            "tasks:read,runs",
            "--expires-in-days",
            "7",
        ],
    );
    let (stdout, stderr) = out(&made);
    assert!(made.status.success(), "{stdout}\n{stderr}");
    let value = stdout.trim().to_owned();
    assert!(
        value.starts_with("deft_") && !value.contains('\n'),
        "only the value: {stdout:?}"
    );
    assert!(
        stderr.contains("token nightly erp made (runs,tasks:read)"),
        "{stderr}"
    );

    let as_token = serve.api().with(Auth::Token(value.clone()));
    assert_eq!(as_token.get("/api/tasks").await.status, 200);
    let refused = as_token.post("/api/tasks/x/run", &json!({})).await;
    assert_eq!(refused.status, 403, "{}", refused.text);
    assert!(
        refused.text.contains("lacks the scope tasks:run"),
        "{}",
        refused.text
    );

    let listed = deft_token(&serve, &["list"]);
    let (stdout, _) = out(&listed);
    assert!(listed.status.success());
    assert!(
        stdout.contains("nightly erp")
            && stdout.contains("runs,tasks:read")
            && stdout.contains("active"),
        "{stdout}"
    );
    assert!(
        !stdout.contains(&value[12..]),
        "the list never shows the value: {stdout}"
    );

    // The calls it made, as logged (the log is written off the request's path: wait for it).
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let shown = loop {
        let shown = deft_token(&serve, &["show", "nightly erp"]);
        let (stdout, stderr) = out(&shown);
        assert!(shown.status.success(), "{stderr}");
        if stdout.contains("/api/tasks/x/run") && stdout.contains("/api/tasks ") {
            break stdout;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "calls not logged: {stdout}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(shown.contains("403") && shown.contains("200"), "{shown}");

    the_server_tokens_calls_are_shown(&serve).await;

    let bad = deft_token(&serve, &["create", "ci", "--scope", "admin"]);
    let (_, stderr) = out(&bad);
    assert!(!bad.status.success());
    assert!(
        stderr.contains("unknown scope \"admin\": use some of devices:read"),
        "{stderr}"
    );

    let revoked = deft_token(&serve, &["revoke", "nightly erp"]);
    assert!(revoked.status.success(), "{:?}", out(&revoked));
    let after = as_token.get("/api/tasks").await;
    assert_eq!(after.status, 401, "revoked at once: {}", after.text);
    let unknown = deft_token(&serve, &["revoke", "nobody"]);
    assert!(!unknown.status.success());
    assert!(
        out(&unknown).1.contains("no API token named \"nobody\""),
        "{:?}",
        out(&unknown)
    );

    // From a console login, the maker is the person.
    let admin = serve.login().await;
    let by_person = admin
        .post(
            "/api/tokens",
            &json!({"name": "from console", "scopes": ["devices:read"]}),
        )
        .await;
    assert_eq!(by_person.status, 201, "{}", by_person.text);
    assert_eq!(by_person.body["token"]["created_by"], "admin");
}

/// `deft token show api-token` lists the calls made with the server's own API token (`deft
/// token` itself makes them), once the log has them.
async fn the_server_tokens_calls_are_shown(serve: &Serve) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let shown = deft_token(serve, &["show", "api-token"]);
        let (stdout, stderr) = out(&shown);
        assert!(shown.status.success(), "{stderr}");
        if stdout.lines().any(|l| {
            l.contains("POST") && l.contains("/api/tokens") && l.trim_end().ends_with("201")
        }) {
            assert!(
                stderr.contains("the server's API token (api-token)"),
                "{stderr}"
            );
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server token's calls not logged: {stdout}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
