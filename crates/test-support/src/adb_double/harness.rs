//! [`AdbHarness`]: a private real adb server — its own `HOME` (where adb writes its key) and
//! its own free port — with device doubles connected; the server is killed on drop.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use deft_adb::AdbClient;

use super::AdbDouble;
use super::config::DoubleConfig;

/// How long a connected double may take to show as `device`.
const ONLINE_WITHIN: Duration = Duration::from_secs(10);

/// A private adb server and the doubles connected to it.
pub struct AdbHarness {
    home: tempfile::TempDir,
    port: u16,
    doubles: Vec<AdbDouble>,
}

impl AdbHarness {
    /// A private `HOME` and server port, no server started yet.
    pub fn without_server() -> AdbHarness {
        let home = tempfile::Builder::new()
            .prefix("deft-adb-home-")
            .tempdir()
            .unwrap_or_else(|e| panic!("adb home: {e}"));
        AdbHarness {
            home,
            port: crate::net::free_port(),
            doubles: Vec::new(),
        }
    }

    /// A private server with one double per config connected (each listed as `device`).
    pub fn start(configs: Vec<DoubleConfig>) -> AdbHarness {
        let mut harness = AdbHarness::without_server();
        harness.adb_ok(&["start-server"]);
        for config in configs {
            harness.connect(AdbDouble::start(config));
        }
        harness
    }

    /// Connects `double` to the server and keeps it.
    pub fn connect(&mut self, double: AdbDouble) {
        let serial = double.serial();
        let out = self.adb_ok(&["connect", &serial]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("connected to"),
            "adb connect {serial}: {text}"
        );
        self.wait_online(&serial);
        self.doubles.push(double);
    }

    /// Waits until the server reports `serial` as `device`.
    fn wait_online(&self, serial: &str) {
        let until = Instant::now() + ONLINE_WITHIN;
        loop {
            let out = self.adb(&["-s", serial, "get-state"]);
            if String::from_utf8_lossy(&out.stdout).trim() == "device" {
                return;
            }
            assert!(
                Instant::now() < until,
                "{serial} never came online: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The private `HOME`.
    pub fn home(&self) -> &std::path::Path {
        self.home.path()
    }

    /// The `i`th double.
    pub fn double(&self, i: usize) -> &AdbDouble {
        &self.doubles[i]
    }

    /// deft's client of this server (a server it starts gets the private `HOME`).
    pub fn client(&self) -> AdbClient {
        AdbClient::new(self.port).with_server_env("HOME", self.home.path())
    }

    /// Runs `adb ARGS` against this server.
    pub fn adb(&self, args: &[&str]) -> Output {
        Command::new("adb")
            .arg("-P")
            .arg(self.port.to_string())
            .args(args)
            .env("HOME", self.home.path())
            .env("ANDROID_ADB_SERVER_PORT", self.port.to_string())
            .output()
            .unwrap_or_else(|e| panic!("adb {args:?}: {e} (scripts/test.sh installs adb)"))
    }

    /// Runs `adb ARGS`, which must succeed.
    pub fn adb_ok(&self, args: &[&str]) -> Output {
        let out = self.adb(args);
        assert!(
            out.status.success(),
            "adb {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

impl Drop for AdbHarness {
    fn drop(&mut self) {
        let _ = self.adb(&["kill-server"]);
    }
}
