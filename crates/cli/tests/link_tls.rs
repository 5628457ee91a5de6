//! `deft client --server wss://…`: the device link through a TLS-terminating proxy (the usual way
//! to reach a server over a network), with real certificate verification.

#![allow(clippy::unwrap_used)] // test helpers: an unwrap that fails is a failing test

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_protocol::{Command as Cmd, ResultStatus, ToolType};
use deft_server::{Server, ServerConfig};
use deft_test_support::TempDataDir;
use deft_test_support::proc::GroupChild;
use deft_tools::{Devices, ExecContext};
use serde_json::json;
use tokio_rustls::rustls;
use tokio_util::sync::CancellationToken;

const DEVICE_TOKEN: &str = "tls-device-token";

/// A TLS proxy for `localhost` in front of `upstream`; returns its port and the CA file a client
/// must trust.
async fn tls_proxy(
    upstream: std::net::SocketAddr,
    dir: &std::path::Path,
) -> (u16, std::path::PathBuf) {
    let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("certificate");
    let ca = dir.join("ca.pem");
    std::fs::write(&ca, ck.cert.pem()).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(ck.signing_key.serialize_der().into());
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![ck.cert.der().clone()], key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut up) = tokio::net::TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut up).await;
            });
        }
    });
    (port, ca)
}

fn client(
    url: &str,
    id: &str,
    env: &[(&str, &std::path::Path)],
    data: &TempDataDir,
) -> (GroupChild, std::path::PathBuf) {
    let stderr = data.path().join(format!("{id}.stderr"));
    let mut cmd = deft_test_support::proc::deft_command(env!("CARGO_BIN_EXE_deft"));
    cmd.arg("--data-dir")
        .arg(data.path())
        .args(["client", "--server", url, "--id", id, "--profile", "shell"])
        .env("DEFT_DEVICE_TOKEN", DEVICE_TOKEN)
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&stderr).unwrap());
    (GroupChild::spawn(cmd).expect("spawn deft client"), stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_reaches_the_server_over_wss_and_verifies_the_certificate() {
    let server = Server::bind(ServerConfig::new(
        "127.0.0.1:0".parse().unwrap(),
        DEVICE_TOKEN,
        "tls-api-token",
    ))
    .await
    .expect("bind");
    let upstream = server.local_addr();
    let registry = server.registry();
    let stop = CancellationToken::new();
    tokio::spawn(server.serve(stop.clone()));
    let data = TempDataDir::new().unwrap();
    let (port, ca) = tls_proxy(upstream, data.path()).await;
    let url = format!("wss://localhost:{port}");

    // Trusting the proxy's certificate: the device registers and runs a batch over TLS.
    let (_trusting, _) = client(&url, "tls-dev", &[("SSL_CERT_FILE", &ca)], &data);
    let until = Instant::now() + Duration::from_secs(20);
    let device = loop {
        if let Some(d) = registry.get("tls-dev") {
            break d;
        }
        assert!(
            Instant::now() < until,
            "the device did not register over wss"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let ctx = ExecContext::new("tls-dev", "shell");
    let cmd = Cmd::new(
        "run_shell",
        Some(ToolType::Action),
        json!({"command": "echo over tls"}),
    );
    let r = device.dispatcher.execute(&ctx, vec![cmd]).await;
    assert_eq!(r[0].status, ResultStatus::Success, "{r:?}");
    assert_eq!(r[0].result["stdout"], "over tls\n");

    // The API over https, as `deft devices` uses it.
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_deft"))
        .args(["devices", "--server", &format!("https://localhost:{port}")])
        .env("SSL_CERT_FILE", &ca)
        .env("DEFT_API_TOKEN", "tls-api-token")
        .output()
        .await
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "deft devices over https: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(listed.contains("tls-dev"), "{listed}");

    // Not trusting it: the client refuses the connection and says why.
    let empty = data.path().join("no-cas");
    std::fs::create_dir_all(&empty).unwrap();
    let (_doubting, stderr) = client(&url, "tls-doubt", &[("SSL_CERT_DIR", &empty)], &data);
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(&stderr).unwrap_or_default();
        if text.to_lowercase().contains("certificate") {
            assert!(registry.get("tls-doubt").is_none());
            break;
        }
        assert!(
            Instant::now() < until,
            "no certificate error from the client: {text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(registry.list().iter().all(|d| d.id != "tls-doubt"));
    stop.cancel();
}
