//! What `deft mcp android` and the routing table's `options:` say about the phone: its serial
//! (none: the only phone the adb server lists) and the adb server's port.

use serde::Deserialize;

use deft_adb::{AdbClient, Device};

use crate::error::AndroidError;
use crate::phone::Phone;
use crate::texts;

/// The Android server's options.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AndroidConfig {
    /// The phone's serial as `adb devices` lists it; none: the only phone connected.
    #[serde(default)]
    pub serial: Option<String>,
    /// The adb server's port (default: `ANDROID_ADB_SERVER_PORT`, else 5037).
    #[serde(default)]
    pub adb_port: Option<u16>,
    /// The folders `install_app` may install APKs from (none: it installs nothing).
    #[serde(default)]
    pub apk_dirs: Vec<std::path::PathBuf>,
    /// Where the clipboard helper (`devicekit.dex`) is on the phone (none:
    /// `/data/local/tmp/devicekit.dex`).
    #[serde(default)]
    pub clipboard_helper: Option<String>,
}

impl AndroidConfig {
    /// The options of a routing-table entry (`null`: the defaults); errors say what is wrong.
    pub fn from_options(options: &serde_json::Value) -> Result<AndroidConfig, String> {
        if options.is_null() {
            return Ok(AndroidConfig::default());
        }
        serde_json::from_value(options.clone())
            .map_err(|e| format!("invalid options for the android server: {e}"))
    }

    /// The client of the adb server these options name.
    pub fn client(&self) -> Result<AdbClient, AndroidError> {
        Ok(match self.adb_port {
            Some(port) => AdbClient::new(port),
            None => AdbClient::from_env()?,
        })
    }

    /// The APK at `path`, read when it is a file inside one of [`AndroidConfig::apk_dirs`]:
    /// the file is opened first and the folder checked on what was opened (the descriptor's
    /// own path), so no symbolic link or swapped folder can lead it elsewhere. Its file name and
    /// bytes.
    pub fn read_apk(&self, path: &str) -> Result<(String, Vec<u8>), AndroidError> {
        use std::io::Read as _;
        let model = |text: String| AndroidError::Model(text);
        let dirs: Vec<String> = self
            .apk_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        if self.apk_dirs.is_empty() {
            return Err(model(texts::NO_APK_DIRS.into()));
        }
        let mut file = std::fs::File::open(path)
            .map_err(|e| model(texts::apk_unreadable(path, &e.to_string())))?;
        let opened = std::fs::read_link(format!("/proc/self/fd/{}", fd_of(&file)))
            .map_err(|e| model(texts::apk_unreadable(path, &e.to_string())))?;
        let inside = self
            .apk_dirs
            .iter()
            .any(|d| std::fs::canonicalize(d).is_ok_and(|d| opened.starts_with(&d) && opened != d));
        if !inside {
            return Err(model(texts::apk_outside(path, &dirs)));
        }
        let meta = file
            .metadata()
            .map_err(|e| model(texts::apk_unreadable(path, &e.to_string())))?;
        if !meta.is_file() {
            return Err(model(texts::apk_unreadable(path, "not a file")));
        }
        if meta.len() > MAX_APK_BYTES {
            return Err(model(texts::apk_too_big(path, meta.len(), MAX_APK_BYTES)));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        file.read_to_end(&mut bytes)
            .map_err(|e| model(texts::apk_unreadable(path, &e.to_string())))?;
        let name = opened.file_name().map_or_else(
            || "app.apk".to_owned(),
            |n| n.to_string_lossy().into_owned(),
        );
        Ok((name, bytes))
    }

    /// The phone these options name, checked against the adb server's list: it must be there
    /// and ready (`device`).
    pub async fn phone(&self) -> Result<Phone, AndroidError> {
        let adb = self.client()?;
        let devices = adb.devices().await?;
        let serial = pick(self.serial.as_deref(), &devices)?;
        Ok(Phone::new(adb, serial))
    }
}

/// The largest APK `install_app` takes.
pub const MAX_APK_BYTES: u64 = 1 << 30;

/// The descriptor number of an open file.
fn fd_of(file: &std::fs::File) -> i32 {
    use std::os::fd::AsRawFd as _;
    file.as_raw_fd()
}

/// The serial to use among `devices`: the one asked for if it is ready, else the only ready one.
fn pick(asked: Option<&str>, devices: &[Device]) -> Result<String, AndroidError> {
    let ready: Vec<&Device> = devices.iter().filter(|d| d.state == "device").collect();
    match asked.map(str::trim).filter(|s| !s.is_empty()) {
        Some(serial) => match devices.iter().find(|d| d.serial == serial) {
            Some(d) if d.state == "device" => Ok(d.serial.clone()),
            Some(d) => Err(AndroidError::Model(not_ready(d))),
            None => Err(AndroidError::Model(texts::no_such_phone(
                serial,
                &serials(devices),
            ))),
        },
        None => match ready.as_slice() {
            [one] => Ok(one.serial.clone()),
            [] => Err(AndroidError::Model(texts::no_phone(&serials(devices)))),
            many => Err(AndroidError::Model(texts::which_phone(
                &many.iter().map(|d| d.serial.clone()).collect::<Vec<_>>(),
            ))),
        },
    }
}

/// Why `d` cannot be used, with what to do (deft-adb's advice for its state).
pub fn not_ready(d: &Device) -> String {
    texts::phone_not_ready(&d.serial, &d.state, &d.state_advice().unwrap_or_default())
}

fn serials(devices: &[Device]) -> Vec<String> {
    devices
        .iter()
        .map(|d| format!("{} ({})", d.serial, d.state))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use deft_adb::parse_devices_l;

    #[test]
    fn the_only_ready_phone_is_picked_and_others_are_named() {
        let devices = parse_devices_l(
            "emulator-5554 device product:sdk model:Pixel device:x transport_id:1\nR58M unauthorized transport_id:2\n",
        );
        assert_eq!(pick(None, &devices).unwrap(), "emulator-5554");
        assert_eq!(
            pick(Some("emulator-5554"), &devices).unwrap(),
            "emulator-5554"
        );
        let e = pick(Some("R58M"), &devices).unwrap_err().to_string();
        assert!(
            e.starts_with("Phone R58M is unauthorized: unlock the phone and accept"),
            "{e}"
        );
        let e = pick(Some("nope"), &devices).unwrap_err().to_string();
        assert_eq!(
            e,
            texts::no_such_phone(
                "nope",
                &[
                    "emulator-5554 (device)".into(),
                    "R58M (unauthorized)".into()
                ]
            )
        );
        let two = parse_devices_l("a device\nb device\n");
        assert_eq!(
            pick(None, &two).unwrap_err().to_string(),
            texts::which_phone(&["a".into(), "b".into()])
        );
        assert_eq!(
            pick(None, &[]).unwrap_err().to_string(),
            texts::no_phone(&[])
        );
        assert!(AndroidConfig::from_options(&serde_json::json!({"serail": "x"})).is_err());
    }
}
