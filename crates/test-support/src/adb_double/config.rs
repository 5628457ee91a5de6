//! What a device double is: its names in the banner, the commands it answers and the screens
//! it replays.

use std::collections::HashMap;
use std::time::Duration;

/// What a command prints and its exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// stdout.
    pub stdout: Vec<u8>,
    /// stderr.
    pub stderr: Vec<u8>,
    /// The exit status.
    pub exit: u8,
}

impl Reply {
    /// A command that prints `stdout` and exits 0.
    pub fn stdout(stdout: impl Into<Vec<u8>>) -> Reply {
        Reply {
            stdout: stdout.into(),
            ..Reply::default()
        }
    }

    /// A command that prints `stderr` and exits `exit`.
    pub fn failure(stderr: impl Into<Vec<u8>>, exit: u8) -> Reply {
        Reply {
            stderr: stderr.into(),
            exit,
            ..Reply::default()
        }
    }
}

/// What the double does for one exact command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Answers.
    Reply(Reply),
    /// Sends `partial` as stdout, then drops the adb server's connection (a phone unplugged in
    /// the middle of a command).
    DropConnection {
        /// What it prints before.
        partial: Vec<u8>,
    },
    /// Never answers (the stream stays open until the server closes it).
    Hang,
}

/// A double's configuration.
#[derive(Debug, Clone)]
pub struct DoubleConfig {
    /// `ro.product.name`.
    pub product: String,
    /// `ro.product.model`.
    pub model: String,
    /// `ro.product.device`.
    pub device: String,
    /// Exact command lines and what they do (before any built-in command).
    pub commands: HashMap<String, Action>,
    /// The screens `uiautomator dump` gives, in order (XML text); none: the dump fails as on a
    /// phone with no active window.
    pub screens: Vec<String>,
    /// Whether each `input` command moves to the next screen (the last one stays).
    pub input_advances_screen: bool,
    /// Whether it asks for authentication (`AUTH`) instead of connecting, and never accepts a
    /// key — a phone whose "Allow USB debugging?" prompt nobody answers: the server lists it
    /// `unauthorized`.
    pub unauthorized: bool,
    /// Whether it offers the shell protocol v2 (Android 7 and later); without it, `shell,v2`
    /// services are refused and adb falls back to `shell:` (no exit status).
    pub shell_v2: bool,
    /// A simulated phone ([`DoubleConfig::phone`]) instead of replayed `screens`: apps as state
    /// machines whose screens follow what they are sent.
    pub phone: Option<PhoneConfig>,
}

/// The simulated phone's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneConfig {
    /// The screen's size in pixels (`wm size`), width then height.
    pub size: (u32, u32),
    /// `ro.build.version.release`.
    pub release: String,
    /// `ro.build.version.sdk`.
    pub sdk: u32,
    /// Whether ADBKeyBoard (`com.android.adbkeyboard`, the IME that types any Unicode from a
    /// broadcast) is installed; enabling and selecting it is up to its user, as on a phone.
    pub adb_keyboard: bool,
    /// How long each `uiautomator dump` takes (without holding up the double's other streams).
    pub dump_latency: Duration,
    /// How many dumps after each change of the screen fail with `ERROR: could not get idle
    /// state.` (an animation still running).
    pub unsettled_dumps: u32,
}

impl Default for PhoneConfig {
    fn default() -> Self {
        PhoneConfig {
            size: (1080, 2400),
            release: "14".into(),
            sdk: 34,
            adb_keyboard: true,
            dump_latency: Duration::ZERO,
            unsettled_dumps: 0,
        }
    }
}

impl Default for DoubleConfig {
    fn default() -> Self {
        DoubleConfig {
            product: "sdk_gphone".into(),
            model: "Pixel Double".into(),
            device: "double".into(),
            commands: HashMap::new(),
            screens: Vec::new(),
            input_advances_screen: false,
            unauthorized: false,
            shell_v2: true,
            phone: None,
        }
    }
}

impl DoubleConfig {
    /// The same config named `model`.
    pub fn model(mut self, model: &str) -> DoubleConfig {
        self.model = model.into();
        self
    }

    /// The same config answering `command` with `reply`.
    pub fn command(mut self, command: &str, reply: Reply) -> DoubleConfig {
        self.commands.insert(command.into(), Action::Reply(reply));
        self
    }

    /// The same config doing `action` for `command`.
    pub fn action(mut self, command: &str, action: Action) -> DoubleConfig {
        self.commands.insert(command.into(), action);
        self
    }

    /// The same config with the fixture screens `names` (files of `fixtures/android/`).
    pub fn screens(mut self, names: &[&str]) -> DoubleConfig {
        self.screens = names.iter().map(|name| android_fixture(name)).collect();
        self
    }

    /// A simulated phone: the launcher in front, Settings, Calculator, a form, a Chinese notes
    /// app and Contacts installed, ADBKeyBoard installed (not enabled), the screen on.
    pub fn phone() -> DoubleConfig {
        DoubleConfig {
            phone: Some(PhoneConfig::default()),
            ..DoubleConfig::default()
        }
    }

    /// The same phone without ADBKeyBoard.
    pub fn without_adb_keyboard(mut self) -> DoubleConfig {
        self.phone_config().adb_keyboard = false;
        self
    }

    /// The same phone taking `latency` for each dump.
    pub fn dump_latency(mut self, latency: Duration) -> DoubleConfig {
        self.phone_config().dump_latency = latency;
        self
    }

    /// The same phone failing `n` dumps after each change of its screen (an animation).
    pub fn unsettled_dumps(mut self, n: u32) -> DoubleConfig {
        self.phone_config().unsettled_dumps = n;
        self
    }

    fn phone_config(&mut self) -> &mut PhoneConfig {
        self.phone.get_or_insert_with(PhoneConfig::default)
    }

    /// The banner the double sends in its CNXN.
    pub(crate) fn banner(&self) -> String {
        format!(
            "device::ro.product.name={};ro.product.model={};ro.product.device={};features={}",
            self.product,
            self.model,
            self.device,
            if self.shell_v2 { FEATURES } else { FEATURES_V1 }
        )
    }
}

/// The features the double offers: shell v2 and the v2 stat/list of sync, no delayed ack, no
/// compressed transfers (so adb never asks for what it lacks).
pub const FEATURES: &str = "shell_v2,cmd,stat_v2,ls_v2";
/// The features of a double without the shell protocol v2 (an Android 6 phone).
pub const FEATURES_V1: &str = "cmd,stat_v2,ls_v2";

/// The text of `fixtures/android/NAME` (real `uiautomator dump` files; see SOURCES.md there).
pub fn android_fixture(name: &str) -> String {
    let path = crate::repo_root()
        .join("crates/test-support/fixtures/android")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
