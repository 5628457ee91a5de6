//! A device double: a small adbd that the real adb server accepts after
//! `adb connect 127.0.0.1:PORT`, answering from a command table and replaying recorded
//! `uiautomator dump` screens (`fixtures/android/`).
//!
//! - [`AdbDouble`]: one double on its own thread and loopback port (outside the emulator ports
//!   5554–5585 that adb probes), with what it was sent ([`AdbDouble::inputs`],
//!   [`AdbDouble::commands`]).
//! - [`DoubleConfig`]: its names, commands ([`Reply`], [`Action`]) and screens.
//! - [`AdbHarness`]: a private adb server (own `HOME` and port, killed on drop) with doubles
//!   connected, so tests run in parallel, anywhere, as root or not.
//!
//! Built-in commands: `echo`, `uiautomator dump [FILE]` (`/dev/tty`: the XML then
//! `UI hierchary dumped to: /dev/tty`, as phones print it), `cat FILE`, `screencap -p` (a small
//! PNG), `input tap|swipe|keyevent|text` (recorded); any other program is "inaccessible or not
//! found", exit 127.

mod config;
mod device;
mod harness;
mod services;
mod stream;
mod sync;
mod transport;

use std::net::TcpListener;
use std::sync::Arc;

use parking_lot::Mutex;

pub use config::{Action, DoubleConfig, FEATURES, FEATURES_V1, Reply, android_fixture};
pub use device::{DEFAULT_DUMP, Input, tiny_png};
pub use harness::AdbHarness;

use device::Device;

/// The ports an adb server probes for emulators (and would list a second time).
const EMULATOR_PORTS: std::ops::RangeInclusive<u16> = 5554..=5585;

/// A running device double; stops when dropped.
pub struct AdbDouble {
    port: u16,
    device: Arc<Mutex<Device>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl AdbDouble {
    /// Starts a double on a free loopback port.
    pub fn start(config: DoubleConfig) -> AdbDouble {
        let listener = loop {
            let listener = TcpListener::bind("127.0.0.1:0")
                .unwrap_or_else(|e| panic!("binding the adb double: {e}"));
            let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
            if port != 0 && !EMULATOR_PORTS.contains(&port) {
                break listener;
            }
        };
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        listener
            .set_nonblocking(true)
            .unwrap_or_else(|e| panic!("adb double listener: {e}"));
        let device = Arc::new(Mutex::new(Device::new(config)));
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let served = device.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap_or_else(|e| panic!("adb double runtime: {e}"));
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)
                    .unwrap_or_else(|e| panic!("adb double listener: {e}"));
                tokio::select! {
                    _ = stopped => {}
                    _ = accept_loop(listener, served) => {}
                }
            });
        });
        AdbDouble {
            port,
            device,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Its port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The serial the adb server gives it once connected (`127.0.0.1:PORT`).
    pub fn serial(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The `input` commands it received, in order.
    pub fn inputs(&self) -> Vec<Input> {
        self.device.lock().inputs.clone()
    }

    /// Every command line it was asked to run (and every service it refused), in order.
    pub fn commands(&self) -> Vec<String> {
        self.device.lock().commands.clone()
    }

    /// The index of the screen a dump shows now.
    pub fn screen(&self) -> usize {
        self.device.lock().screen()
    }

    /// A file of the double (written by a dump or a push).
    pub fn file(&self, path: &str) -> Option<Vec<u8>> {
        self.device.lock().files.get(path).cloned()
    }
}

impl Drop for AdbDouble {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Serves every connection the adb server makes (it reconnects after a drop).
async fn accept_loop(listener: tokio::net::TcpListener, device: Arc<Mutex<Device>>) {
    while let Ok((tcp, _)) = listener.accept().await {
        tokio::spawn(transport::serve(tcp, device.clone()));
    }
}
