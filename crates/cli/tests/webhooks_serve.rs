//! `deft webhook` against a real `deft serve` (started with `DEFT_WEBHOOKS_ALLOW_PRIVATE` to
//! reach a receiver on loopback): `create` prints the signing secret alone on stdout, `list`
//! shows the webhook without it, `test` sends a ping the receiver gets signed with that secret,
//! `deliveries` shows it delivered, `delete` removes it; a bad URL is refused with the server's
//! text and a failing exit code.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

#[path = "common/console.rs"]
mod support;

use std::time::Duration;

use deft_test_support::TempDataDir;
use support::{API_TOKEN, Serve, ServeOptions};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// `deft webhook ARGS --server URL` with the API token in `DEFT_API_TOKEN`: (ok, stdout, stderr).
fn deft_webhook(serve: &Serve, args: &[&str]) -> (bool, String, String) {
    let o = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"))
        .arg("webhook")
        .args(args)
        .args(["--server", &serve.url])
        .env("DEFT_API_TOKEN", API_TOKEN)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Accepts one HTTP request on `listener` and answers 204: its head (lower-cased header
/// lines) and body.
async fn receive_one(listener: &tokio::net::TcpListener) -> (Vec<String>, Vec<u8>) {
    let (stream, _) = listener.accept().await.unwrap();
    let mut reader = BufReader::new(stream);
    let mut head = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).await.unwrap();
        let line = line.trim_end().to_owned();
        if line.is_empty() {
            break;
        }
        head.push(line.to_ascii_lowercase());
    }
    let length: usize = head
        .iter()
        .find_map(|l| l.strip_prefix("content-length: "))
        .unwrap()
        .parse()
        .unwrap();
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await.unwrap();
    reader
        .get_mut()
        .write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
        .await
        .unwrap();
    (head, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_made_tested_listed_and_deleted_from_the_command_line() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let dir = TempDataDir::new().unwrap();
    let mut options = ServeOptions::shell("http://127.0.0.1:9/v1", dir.path());
    options
        .env
        .push(("DEFT_WEBHOOKS_ALLOW_PRIVATE".into(), "1".into()));
    let serve = Serve::start(dir.path(), &options);

    let (ok, stdout, stderr) = deft_webhook(
        &serve,
        &[
            "create",
            "ci",
            "--url",
            &url,
            "--event",
            "run.ended,task_run.ended",
        ],
    );
    assert!(ok, "{stdout}\n{stderr}");
    let secret = stdout.trim().to_owned();
    assert!(
        secret.starts_with("whsec_") && !secret.contains('\n'),
        "{stdout:?}"
    );
    assert!(stderr.contains("webhook ci made"), "{stderr}");

    let (ok, stdout, _) = deft_webhook(&serve, &["list"]);
    assert!(ok);
    assert!(
        stdout.contains("ci")
            && stdout.contains("active")
            && stdout.contains("run.ended,task_run.ended"),
        "{stdout}"
    );
    assert!(
        !stdout.contains(&secret[8..]),
        "the list never shows the secret: {stdout}"
    );

    let (ok, _, stderr) = deft_webhook(&serve, &["test", "ci"]);
    assert!(ok, "{stderr}");
    let (head, body) = tokio::time::timeout(Duration::from_secs(30), receive_one(&listener))
        .await
        .expect("the ping arrives");
    assert!(head.iter().any(|l| l == "deft-event: ping"), "{head:?}");
    let signature = head
        .iter()
        .find_map(|l| l.strip_prefix("deft-signature: "))
        .unwrap();
    let (t, v1) = signature.split_once(",v1=").unwrap();
    let t: i64 = t.strip_prefix("t=").unwrap().parse().unwrap();
    assert_eq!(v1, deft_app::webhooks::signing::sign(&secret, t, &body));

    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (ok, stdout, stderr) = deft_webhook(&serve, &["deliveries", "ci"]);
        assert!(ok, "{stderr}");
        if stdout.contains("succeeded") {
            assert!(
                stdout.contains("ping") && stdout.contains("204"),
                "{stdout}"
            );
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never delivered: {stdout}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let (ok, _, stderr) = deft_webhook(
        &serve,
        &[
            "create",
            "bad",
            "--url",
            "ftp://example.com/",
            "--event",
            "run.ended",
        ],
    );
    assert!(!ok);
    assert!(
        stderr.contains("url: the URL's scheme is ftp: only http and https can be delivered to"),
        "{stderr}"
    );

    let (ok, _, stderr) = deft_webhook(&serve, &["delete", "ci"]);
    assert!(ok, "{stderr}");
    let (ok, stdout, _) = deft_webhook(&serve, &["list"]);
    assert!(ok && !stdout.contains("ci "), "{stdout}");
    let (ok, _, stderr) = deft_webhook(&serve, &["delete", "ci"]);
    assert!(!ok && stderr.contains("no webhook \"ci\""), "{stderr}");
}
