//! A device double: a small adbd that the real adb server accepts after
//! `adb connect 127.0.0.1:PORT`, answering from a command table and either replaying recorded
//! `uiautomator dump` screens (`fixtures/android/`) or simulating a phone.
//!
//! - [`AdbDouble`]: one double on its own thread and loopback port (outside the emulator ports
//!   5554–5585 that adb probes), with what it was sent ([`AdbDouble::inputs`],
//!   [`AdbDouble::commands`]) and, for a simulated phone, its state
//!   ([`AdbDouble::foreground`], [`AdbDouble::screen_on`], [`AdbDouble::field_text`],
//!   [`AdbDouble::stay_on`], [`AdbDouble::ime`], [`AdbDouble::calculator`],
//!   [`AdbDouble::packages`]).
//! - [`DoubleConfig`]: its names, commands ([`Reply`], [`Action`]), screens, or the simulated
//!   phone ([`DoubleConfig::phone`], [`PhoneConfig`]).
//! - [`AdbHarness`]: a private adb server (own `HOME` and port, killed on drop) with doubles
//!   connected, so tests run in parallel, anywhere, as root or not.
//!
//! Built-in commands: `echo`, `uiautomator dump [FILE]` (`/dev/tty`: the XML then
//! `UI hierchary dumped to: /dev/tty`, as phones print it), `cat FILE`, `screencap -p` (a small
//! PNG), `input tap|swipe|keyevent|text|motionevent|keycombination` (recorded, one
//! [`Input`] per key of a `keyevent`); any other program is "inaccessible or not found",
//! exit 127.
//!
//! The simulated phone (`phone/`, 1080×2400, Android 14, SDK 34) runs apps as state machines
//! whose screens are generated view trees written in the dump dialect of Android 13/14: the
//! launcher (`com.android.launcher3`, an icon per app), Settings (`com.android.settings`, laid
//! out after the recorded Android 14 home; the rows after Storage — Battery … About phone —
//! show only once a vertical swipe scrolls the list), the AOSP Calculator
//! (`com.android.calculator2`: `digit_N`, `op_add|sub|mul|div`, `dec_point`, `eq`, `del`/`clr`,
//! `formula`, `result`; real arithmetic), a form (`com.example.form`: `name`, `city`, Submit →
//! an `AlertDialog` "Saved", `android:id/button1` OK / `button2` Cancel), a Chinese notes app
//! (`com.example.notes`, 记事本), Contacts; APP_SWITCH shows the recorded recents overlay. It
//! answers, as an Android 14 phone prints them:
//! - `uiautomator dump [--compressed] [FILE]` (after [`PhoneConfig::dump_latency`], which
//!   holds up no other stream; `ERROR: null root node returned by UiTestAutomationBridge.`
//!   while the screen is off; `ERROR: could not get idle state.` for
//!   [`PhoneConfig::unsettled_dumps`] dumps after each change) and `screencap -p` (a PNG of
//!   the screen's views at full size, black while off);
//! - `input tap` (the deepest clickable view under the point reacts), `swipe` (one point: a
//!   tap, or held ≥ 500 ms a long press; vertical: the scrollable view under its start
//!   scrolls), `motionevent DOWN…UP` (a tap or a swipe), `keyevent` (codes or `KEYCODE_`
//!   names: HOME, BACK — a dialog, a page, then the app —, APP_SWITCH, DEL in the focused
//!   field, WAKEUP, SLEEP, POWER), `text` (ASCII into the focused field, `%s` a space; other
//!   text: Android's `NullPointerException`, exit 255, nothing typed), `keycombination`;
//! - `ime list -s [-a]|enable|disable|set|reset`, `settings get secure default_input_method`,
//!   and ADBKeyBoard's broadcasts (`am broadcast -a ADB_INPUT_TEXT|ADB_INPUT_B64 --es msg …`,
//!   `ADB_INPUT_CHARS --eia chars …`, `ADB_INPUT_CODE --ei code 67`, `ADB_CLEAR_TEXT`), which
//!   type only while `com.android.adbkeyboard/.AdbIME` is installed and current;
//! - `dumpsys window displays|windows` (`mCurrentFocus`: the activity, or a dialog's title;
//!   `mFocusedApp`), `dumpsys power`, `wm size`, `getprop ro.product.model|
//!   ro.build.version.release|ro.build.version.sdk`, `pm list packages`, `pm path`,
//!   `pm install [-r] [-t] PATH` (a pushed zip installs; anything else
//!   `INSTALL_PARSE_FAILED_NOT_APK`), `monkey -p PKG …` (unknown: `** No activities found to
//!   run, monkey aborted.`, exit 252), `am start -n PKG/ACT` (`Error: Activity class {…} does
//!   not exist.`), `am force-stop`, `cmd package resolve-activity --brief … PKG`,
//!   `svc power stayon true|false|usb|ac|wireless`, `settings get global
//!   stay_on_while_plugged_in`.

mod config;
mod device;
mod harness;
mod phone;
mod services;
mod stream;
mod sync;
mod transport;

use std::net::TcpListener;
use std::sync::Arc;

use parking_lot::Mutex;

pub use config::{
    Action, DoubleConfig, FEATURES, FEATURES_V1, PhoneConfig, Reply, android_fixture,
};
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

    /// Reads the simulated phone; panics on a double that is none
    /// ([`DoubleConfig::phone`]).
    fn phone<T>(&self, read: impl FnOnce(&phone::Phone) -> T) -> T {
        match self.device.lock().phone.as_ref() {
            Some(phone) => read(phone),
            None => panic!("this double is no simulated phone (DoubleConfig::phone())"),
        }
    }

    /// The package in front (the launcher's at home).
    pub fn foreground(&self) -> String {
        self.phone(phone::Phone::foreground)
    }

    /// Whether the screen is on.
    pub fn screen_on(&self) -> bool {
        self.phone(phone::Phone::awake)
    }

    /// The text of the field `id` (a full resource id) of a running app; `None` when no
    /// running app has it.
    pub fn field_text(&self, id: &str) -> Option<String> {
        self.phone(|p| p.field(id))
    }

    /// `stay_on_while_plugged_in` (0 off; 1 AC, 2 USB, 4 wireless added up; 7 after
    /// `svc power stayon true`).
    pub fn stay_on(&self) -> u32 {
        self.phone(phone::Phone::stay_on)
    }

    /// The current input method's id.
    pub fn ime(&self) -> String {
        self.phone(phone::Phone::current_ime)
    }

    /// The calculator's display, (formula, result), while it runs.
    pub fn calculator(&self) -> Option<(String, String)> {
        self.phone(phone::Phone::calculator)
    }

    /// The installed packages.
    pub fn packages(&self) -> Vec<String> {
        self.phone(phone::Phone::packages)
    }

    /// The clipboard's text (`None`: nothing copied).
    pub fn clipboard(&self) -> Option<String> {
        self.phone(phone::Phone::clipboard)
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
