//! The simulated phone's clipboard: what Ctrl+C / COPY took from the focused field, what
//! Ctrl+V / PASTE puts back, and the one way adb reaches it — a helper run as the shell user
//! (`CLASSPATH=DEX app_process / com.mobilenext.devicekit.Clipboard get|set|clear`, Mobile
//! Next's devicekit), answered only while the helper's file is on the phone.

use std::collections::HashMap;

use base64::Engine as _;

use super::Phone;
use crate::adb_double::config::Reply;

/// The helper's clipboard class.
pub(crate) const CLIPBOARD_CLASS: &str = "com.mobilenext.devicekit.Clipboard";

impl Phone {
    /// `CLASSPATH=DEX app_process / CLASS ARGS`: the clipboard helper when `DEX` was pushed
    /// (a dex file: its magic `dex\n`) and `CLASS` is its clipboard; else what `app_process` prints for a class it cannot load.
    pub(crate) fn app_process(
        &mut self,
        classpath: &str,
        class: &str,
        args: &[&str],
        files: &HashMap<String, Vec<u8>>,
    ) -> Reply {
        let is_dex = files
            .get(classpath)
            .is_some_and(|bytes| bytes.starts_with(b"dex\n"));
        if !is_dex || class != CLIPBOARD_CLASS {
            return Reply::failure(
                format!(
                    "Exception in thread \"main\" java.lang.ClassNotFoundException: Didn't find class \"{class}\" on path: DexPathList[[zip file \"{classpath}\"]]\n"
                ),
                1,
            );
        }
        match args {
            ["get"] => Reply::stdout(format!("{}\n", self.clipboard.clone().unwrap_or_default())),
            ["set", "--base64", b64] => {
                match base64::engine::general_purpose::STANDARD.decode(b64) {
                    Ok(bytes) => {
                        self.clipboard = Some(String::from_utf8_lossy(&bytes).into_owned());
                        Reply::default()
                    }
                    Err(e) => Reply::failure(format!("Error: bad base-64: {e}\n"), 1),
                }
            }
            ["set", text] => {
                self.clipboard = Some((*text).to_owned());
                Reply::default()
            }
            ["clear"] => {
                self.clipboard = None;
                Reply::default()
            }
            _ => Reply::failure(
                "Usage: Clipboard set <text> | set --base64 <b64> | get | clear\n",
                2,
            ),
        }
    }

    /// COPY (Ctrl+C): the focused field's text goes to the clipboard.
    pub(crate) fn copy(&mut self) {
        if let Some(field) = self.front_mut().focused_field() {
            let text = field.text.clone();
            self.clipboard = Some(text);
        }
    }

    /// PASTE (Ctrl+V): the clipboard's text is typed into the focused field.
    pub(crate) fn paste(&mut self) {
        if let Some(text) = self.clipboard.clone() {
            self.type_text(&text);
        }
    }

    /// What the clipboard holds.
    pub(crate) fn clipboard(&self) -> Option<String> {
        self.clipboard.clone()
    }
}
