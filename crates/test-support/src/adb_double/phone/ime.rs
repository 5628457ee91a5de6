//! Input methods: the AOSP keyboard (always there, enabled, current on a new phone) and
//! ADBKeyBoard (`com.android.adbkeyboard/.AdbIME`, when installed), with the `ime` command,
//! `settings get secure default_input_method`, and ADBKeyBoard's broadcasts (`ADB_INPUT_TEXT`,
//! `ADB_INPUT_B64`, `ADB_INPUT_CHARS`, `ADB_INPUT_CODE`, `ADB_CLEAR_TEXT`), which type only
//! while it is the current input method — otherwise nobody receives them, and `am broadcast`
//! says `result=0` all the same.

use base64::Engine as _;

use super::{Phone, out};
use crate::adb_double::config::Reply;

/// ADBKeyBoard's package.
pub(crate) const ADB_KEYBOARD_PACKAGE: &str = "com.android.adbkeyboard";
/// ADBKeyBoard's IME id.
pub(crate) const ADB_KEYBOARD: &str = "com.android.adbkeyboard/.AdbIME";
/// The AOSP keyboard's IME id.
pub(crate) const LATIN: &str = "com.android.inputmethod.latin/.LatinIME";

/// The input methods' state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ime {
    installed: Vec<&'static str>,
    enabled: Vec<String>,
    pub(crate) current: String,
}

impl Ime {
    pub(crate) fn new(adb_keyboard: bool) -> Ime {
        let mut installed = vec![LATIN];
        if adb_keyboard {
            installed.push(ADB_KEYBOARD);
        }
        Ime {
            installed,
            enabled: vec![LATIN.to_owned()],
            current: LATIN.to_owned(),
        }
    }

    /// `ime ARGS`.
    pub(crate) fn command(&mut self, args: &[&str]) -> Reply {
        match args {
            ["list", flags @ ..] if flags.contains(&"-s") => {
                let all = flags.contains(&"-a");
                let ids: Vec<String> = if all {
                    self.installed.iter().map(|s| (*s).to_owned()).collect()
                } else {
                    self.enabled.clone()
                };
                out(ids.iter().map(|id| format!("{id}\n")).collect::<String>())
            }
            ["enable", id] => self.enable(id),
            ["disable", id] => self.disable(id),
            ["set", id] => self.set(id),
            ["reset"] => {
                self.enabled = vec![LATIN.to_owned()];
                self.current = LATIN.to_owned();
                out("Reset input method for user #0\n")
            }
            _ => Reply::failure(
                "Error: unknown command or arguments; try 'ime help'.\n",
                255,
            ),
        }
    }

    fn enable(&mut self, id: &str) -> Reply {
        if !self.installed.contains(&id) {
            return unknown(id, "enabled");
        }
        if self.enabled.iter().any(|e| e == id) {
            return out(format!("Input method {id}: already enabled for user #0\n"));
        }
        self.enabled.push(id.to_owned());
        out(format!("Input method {id}: now enabled for user #0\n"))
    }

    fn disable(&mut self, id: &str) -> Reply {
        if !self.installed.contains(&id) {
            return unknown(id, "disabled");
        }
        let was = self.enabled.iter().any(|e| e == id);
        self.enabled.retain(|e| e != id);
        if self.current == id {
            self.current = LATIN.to_owned();
        }
        let state = if was { "now" } else { "already" };
        out(format!("Input method {id}: {state} disabled for user #0\n"))
    }

    fn set(&mut self, id: &str) -> Reply {
        if !self.enabled.iter().any(|e| e == id) {
            return unknown(id, "selected");
        }
        self.current = id.to_owned();
        out(format!("Input method {id} selected for user #0\n"))
    }

    /// `settings get secure KEY`'s answer for the input-method keys.
    pub(crate) fn setting(&self, key: &str) -> Option<String> {
        match key {
            "default_input_method" => Some(self.current.clone()),
            "enabled_input_methods" => Some(self.enabled.join(":")),
            _ => None,
        }
    }
}

/// What `ime` says of an id that is not installed (or, for `set`, not enabled).
fn unknown(id: &str, verb: &str) -> Reply {
    Reply::failure(
        format!("Unknown input method {id} cannot be {verb} for user #0\n"),
        255,
    )
}

/// The extras of an `am broadcast` (`--es`, `--ei`, `--eia` and the rest, by key).
fn extras<'a>(args: &[&'a str]) -> (Option<&'a str>, Vec<(&'a str, &'a str)>) {
    let mut action = None;
    let mut found = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i] {
            "-a" => {
                action = args.get(i + 1).copied();
                i += 2;
            }
            flag if flag.starts_with("--e") => {
                if let (Some(key), Some(value)) = (args.get(i + 1), args.get(i + 2)) {
                    found.push((*key, *value));
                }
                i += 3;
            }
            _ => i += 1,
        }
    }
    (action, found)
}

impl Phone {
    /// `am broadcast ARGS`: printed as Android prints it; ADBKeyBoard's actions type when it
    /// is installed and current.
    pub(crate) fn broadcast(&mut self, args: &[&str]) -> Reply {
        let (action, extras) = extras(args);
        let Some(action) = action else {
            return out("Broadcasting: Intent { flg=0x400000 }\nBroadcast completed: result=0\n");
        };
        let has = if extras.is_empty() {
            ""
        } else {
            " (has extras)"
        };
        let said = format!(
            "Broadcasting: Intent {{ act={action} flg=0x400000{has} }}\nBroadcast completed: result=0\n"
        );
        if self.ime.current == ADB_KEYBOARD && self.ime.installed.contains(&ADB_KEYBOARD) {
            self.keyboard_broadcast(action, &extras);
        }
        out(said)
    }

    /// What ADBKeyBoard does with `action`.
    fn keyboard_broadcast(&mut self, action: &str, extras: &[(&str, &str)]) {
        let extra = |key: &str| extras.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        match action {
            "ADB_INPUT_TEXT" => {
                if let Some(text) = extra("msg") {
                    self.type_text(text);
                }
            }
            "ADB_INPUT_B64" => {
                let decoded = extra("msg")
                    .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
                    .and_then(|bytes| String::from_utf8(bytes).ok());
                if let Some(text) = decoded {
                    self.type_text(&text);
                }
            }
            "ADB_INPUT_CHARS" => {
                let text: Option<String> = extra("chars").map(|list| {
                    list.split(',')
                        .filter_map(|c| c.trim().parse::<u32>().ok())
                        .filter_map(char::from_u32)
                        .collect()
                });
                if let Some(text) = text {
                    self.type_text(&text);
                }
            }
            "ADB_INPUT_CODE" if extra("code") == Some("67") => self.delete_char(),
            "ADB_CLEAR_TEXT" => self.clear_text(),
            _ => {}
        }
    }
}
