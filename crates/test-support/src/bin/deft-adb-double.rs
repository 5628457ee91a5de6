//! `deft-adb-double [--unauthorized]`: a private real adb server (its own `HOME` and free port)
//! with one simulated phone connected ([`DoubleConfig::phone`]), as a process, for tests that
//! drive `deft serve` from outside (the console's browser tests point its
//! `ANDROID_ADB_SERVER_PORT` at it).
//!
//! `--unauthorized` adds a second double that never accepts the connection, so the server lists
//! it as `unauthorized` (a phone whose owner has not accepted the USB debugging prompt).
//!
//! Prints exactly one line once every phone is listed:
//! `adb server on port N, phones: SERIAL` (`, SERIAL (unauthorized)` after it with
//! `--unauthorized`), then stays until SIGINT or SIGTERM, when it kills its adb server (no server
//! outlives it) and exits.

#![forbid(unsafe_code)]

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use deft_test_support::adb_double::{AdbDouble, AdbHarness, DoubleConfig};
use tokio::signal::unix::{SignalKind, signal};

/// How long the unauthorized double may take to be listed.
const LISTED_WITHIN: Duration = Duration::from_secs(10);

/// `--unauthorized` or nothing.
fn parse_args() -> anyhow::Result<bool> {
    const USAGE: &str = "usage: deft-adb-double [--unauthorized]";
    let mut unauthorized = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--unauthorized" => unauthorized = true,
            other => bail!("unknown argument {other:?}; {USAGE}"),
        }
    }
    Ok(unauthorized)
}

/// Waits until `harness`'s server lists `serial` as `unauthorized`.
async fn wait_unauthorized(harness: &AdbHarness, serial: &str) -> anyhow::Result<()> {
    let until = Instant::now() + LISTED_WITHIN;
    loop {
        let out = harness.adb(&["devices"]);
        let listed = String::from_utf8_lossy(&out.stdout).lines().any(|line| {
            let mut words = line.split_whitespace();
            words.next() == Some(serial) && words.next() == Some("unauthorized")
        });
        if listed {
            return Ok(());
        }
        if Instant::now() >= until {
            bail!(
                "the adb server did not list {serial} as unauthorized within {} s: {}",
                LISTED_WITHIN.as_secs(),
                String::from_utf8_lossy(&out.stdout)
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let with_unauthorized = parse_args()?;
    // Listened for before anything starts, so a signal that comes early still stops the server.
    let mut term = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("listening for SIGINT")?;
    let harness = AdbHarness::start(vec![DoubleConfig::phone()]);
    let mut line = format!(
        "adb server on port {}, phones: {}",
        harness.port(),
        harness.double(0).serial()
    );
    let mut waiting = None;
    if with_unauthorized {
        let double = AdbDouble::start(DoubleConfig {
            unauthorized: true,
            ..DoubleConfig::default()
        });
        let serial = double.serial();
        // `connect` waits for a CNXN that never comes; the server lists the phone meanwhile.
        let connecting = tokio::spawn({
            let (client, serial) = (harness.client(), serial.clone());
            async move { client.connect(&serial).await }
        });
        wait_unauthorized(&harness, &serial).await?;
        line.push_str(&format!(", {serial} (unauthorized)"));
        waiting = Some((double, connecting));
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()?;
    drop(out);
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
    if let Some((double, connecting)) = waiting {
        connecting.abort();
        drop(double);
    }
    // Its drop kills the adb server.
    drop(harness);
    Ok(())
}
