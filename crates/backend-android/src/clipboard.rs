//! The phone's clipboard (`set_clipboard`, `get_clipboard`). adb has no clipboard command, and
//! since Android 10 only the app in front or the keyboard may read the clipboard — but the
//! shell user adb runs as may (it holds `READ_CLIPBOARD_IN_BACKGROUND`). So deft runs a helper
//! as the shell user with `app_process`, nothing installed: Mobile Next's devicekit
//! (`devicekit.dex`, its `Clipboard` class), at the path the phone's options name
//! (`clipboard_helper`, default [`DEFAULT_HELPER_PATH`]). When the phone lacks it and a
//! `devicekit.dex` lies in one of the APK folders, deft copies it to the phone first — once per
//! session, checked again if it vanishes.

use std::sync::atomic::{AtomicBool, Ordering};

use base64::Engine as _;

use crate::config::AndroidConfig;
use crate::error::AndroidError;
use crate::phone::{Phone, PhoneError};
use crate::texts;

/// The helper's file name, as its releases ship it and as deft looks for it in the APK folders.
pub const HELPER_FILE: &str = "devicekit.dex";
/// Where the helper is on the phone unless the options say otherwise.
pub const DEFAULT_HELPER_PATH: &str = "/data/local/tmp/devicekit.dex";
/// The helper's clipboard class.
const CLASS: &str = "com.mobilenext.devicekit.Clipboard";
/// What the command line around the text takes of one adb request (service name, the
/// helper's path and class, quoting), kept generously.
const COMMAND_SHARE: usize = 1024;
/// The most UTF-8 bytes of text `set_clipboard` carries to a phone: base64 on one command
/// line, inside one adb server request.
pub const MAX_PHONE_CLIPBOARD_BYTES: usize = (deft_adb::MAX_REQUEST - COMMAND_SHARE) / 4 * 3;

// The Base64 of the longest text and the command around it fit one request.
const _: () =
    assert!(MAX_PHONE_CLIPBOARD_BYTES.div_ceil(3) * 4 + COMMAND_SHARE <= deft_adb::MAX_REQUEST);

/// The clipboard helper of one phone's server: where it is, and whether it was seen there.
#[derive(Debug)]
pub struct ClipboardHelper {
    path: String,
    seen: AtomicBool,
}

impl ClipboardHelper {
    /// The helper at the path `config` names (else [`DEFAULT_HELPER_PATH`]).
    pub fn new(config: &AndroidConfig) -> ClipboardHelper {
        ClipboardHelper {
            path: config
                .clipboard_helper
                .clone()
                .unwrap_or_else(|| DEFAULT_HELPER_PATH.to_owned()),
            seen: AtomicBool::new(false),
        }
    }

    /// Where the helper is on the phone.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Puts `text` on the phone's clipboard; answers where the helper was copied from when
    /// deft put it on the phone for this call.
    pub async fn set(
        &self,
        phone: &Phone,
        config: &AndroidConfig,
        text: &str,
    ) -> Result<Option<String>, AndroidError> {
        if text.len() > MAX_PHONE_CLIPBOARD_BYTES {
            return Err(AndroidError::Model(texts::phone_clipboard_too_long(
                text.len(),
                MAX_PHONE_CLIPBOARD_BYTES,
            )));
        }
        let copied = self.ensure(phone, config).await?;
        let b64 = base64::engine::general_purpose::STANDARD.encode(text);
        self.run(phone, &["set", "--base64", &b64]).await?;
        Ok(copied)
    }

    /// The text on the phone's clipboard (an empty clipboard, or one without text, is an
    /// error that says so); and where the helper was copied from, as [`ClipboardHelper::set`].
    pub async fn get(
        &self,
        phone: &Phone,
        config: &AndroidConfig,
    ) -> Result<(String, Option<String>), AndroidError> {
        let copied = self.ensure(phone, config).await?;
        let out = self.run(phone, &["get"]).await?;
        // the helper prints the text and a line end
        let text = out.strip_suffix('\n').unwrap_or(&out);
        if text.is_empty() {
            return Err(AndroidError::Model(
                deft_protocol::clipboard::EMPTY.to_owned(),
            ));
        }
        Ok((text.to_owned(), copied))
    }

    /// Runs the helper; a helper that cannot be loaded is looked for again next time.
    async fn run(&self, phone: &Phone, args: &[&str]) -> Result<String, AndroidError> {
        match phone.run_dex(&self.path, CLASS, args).await {
            Err(PhoneError::Refused { said, .. }) => {
                self.seen.store(false, Ordering::Relaxed);
                Err(AndroidError::Model(texts::clipboard_helper_failed(
                    &self.path, &said,
                )))
            }
            other => Ok(other?),
        }
    }

    /// Makes sure the helper is on the phone: seen before, there now, or copied from an APK
    /// folder (answering that folder's file).
    async fn ensure(
        &self,
        phone: &Phone,
        config: &AndroidConfig,
    ) -> Result<Option<String>, AndroidError> {
        if self.seen.load(Ordering::Relaxed) || phone.has_file(&self.path).await? {
            self.seen.store(true, Ordering::Relaxed);
            return Ok(None);
        }
        let local = config
            .apk_dirs
            .iter()
            .map(|d| d.join(HELPER_FILE))
            .find(|f| f.is_file());
        let Some(local) = local else {
            let dirs: Vec<String> = config
                .apk_dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect();
            return Err(AndroidError::Model(texts::no_clipboard_helper(
                &self.path, &dirs,
            )));
        };
        let local = local.display().to_string();
        let (_, bytes) = config.read_apk(&local)?;
        phone.put_file(&self.path, &bytes).await?;
        self.seen.store(true, Ordering::Relaxed);
        Ok(Some(local))
    }
}
