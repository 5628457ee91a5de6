//! [`PhoneDetails`]: what a phone is — its model, Android version and SDK level — read with
//! one shell round trip (three `getprop`s, three lines).

use crate::client::AdbClient;
use crate::error::AdbError;

/// The one command `details` runs: the model, the Android version, the SDK level, a line each.
pub(crate) const PROPERTIES_COMMAND: &str =
    "getprop ro.product.model; getprop ro.build.version.release; getprop ro.build.version.sdk";

/// What a phone is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneDetails {
    /// `ro.product.model` (`Pixel 7`); when the phone gives none, the `model:` of the device
    /// list (where the server wrote `_` for every character but letters and digits).
    pub model: Option<String>,
    /// `ro.build.version.release` (`14`, `8.1.0`).
    pub android_version: Option<String>,
    /// `ro.build.version.sdk` (`34`); `None` when missing or not a number.
    pub sdk: Option<u32>,
}

impl PhoneDetails {
    /// How a person names the phone: `Pixel 7 · Android 14` (`Android phone` without a model).
    pub fn label(&self) -> String {
        let model = self.model.as_deref().unwrap_or("Android phone");
        match &self.android_version {
            Some(v) => format!("{model} · Android {v}"),
            None => model.to_owned(),
        }
    }

    /// Reads the three lines of [`PROPERTIES_COMMAND`]'s stdout (an empty line: not set).
    pub(crate) fn parse(stdout: &str) -> PhoneDetails {
        let mut lines = stdout.lines().map(str::trim);
        let mut next = || {
            lines
                .next()
                .filter(|line| !line.is_empty())
                .map(str::to_owned)
        };
        let (model, android_version, sdk) = (next(), next(), next());
        PhoneDetails {
            model,
            android_version,
            sdk: sdk.and_then(|sdk| sdk.parse().ok()),
        }
    }
}

impl AdbClient {
    /// The model, Android version and SDK level of the phone `serial`, in one shell command;
    /// the model falls back to the device list's `model:` when `getprop` gives none.
    pub async fn details(&self, serial: &str) -> Result<PhoneDetails, AdbError> {
        let output = self.shell(serial, PROPERTIES_COMMAND).await?;
        if output.exit_code != 0 {
            return Err(AdbError::PropertiesFailed {
                serial: serial.to_owned(),
                exit_code: output.exit_code,
                stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            });
        }
        let mut details = PhoneDetails::parse(&String::from_utf8_lossy(&output.stdout));
        if details.model.is_none() {
            details.model = self
                .devices()
                .await?
                .into_iter()
                .find(|device| device.serial == serial)
                .and_then(|device| device.model);
        }
        Ok(details)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phone_is_named_by_its_model_and_android_version() {
        let full = PhoneDetails::parse("Pixel 7\n14\n34\n");
        assert_eq!(full.label(), "Pixel 7 · Android 14");
        assert_eq!(
            PhoneDetails::parse("\n8.1.0\n27\n").label(),
            "Android phone · Android 8.1.0"
        );
        assert_eq!(PhoneDetails::parse("Pixel 7\n\n\n").label(), "Pixel 7");
    }

    #[test]
    fn three_lines_are_model_version_and_sdk() {
        assert_eq!(
            PhoneDetails::parse("Pixel 7\n14\n34\n"),
            PhoneDetails {
                model: Some("Pixel 7".into()),
                android_version: Some("14".into()),
                sdk: Some(34),
            }
        );
        assert_eq!(
            PhoneDetails::parse("\r\n8.1.0\r\nP\n"),
            PhoneDetails {
                model: None,
                android_version: Some("8.1.0".into()),
                sdk: None,
            }
        );
        assert_eq!(
            PhoneDetails::parse(""),
            PhoneDetails {
                model: None,
                android_version: None,
                sdk: None,
            }
        );
    }
}
