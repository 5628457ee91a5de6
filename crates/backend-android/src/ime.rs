//! Typing any Unicode on a phone. adb's `input text` types printable ASCII only (it maps each
//! character to key events of the virtual keyboard's character map), so other text goes through
//! an input method that takes text from a broadcast: ADBKeyBoard
//! (`com.android.adbkeyboard/.AdbIME`, open source, installed once with `adb install`). Its
//! `ADB_INPUT_B64` intent carries the text in Base64, so no character is lost to the shell or to
//! the intent's string parsing. deft selects the input method just for the typing and puts the
//! phone's own keyboard back after it (docs/observation.md "Phones").

use base64::Engine as _;

/// ADBKeyBoard's input method id.
pub const ADB_IME: &str = "com.android.adbkeyboard/.AdbIME";

/// The most characters one broadcast carries (a binder transaction holds far more; short ones
/// keep each command line small).
pub const BROADCAST_CHARS: usize = 1000;

/// The most characters one `input text` command types (its key events are sent one by one;
/// a long command line only delays the first).
pub const INPUT_TEXT_CHARS: usize = 200;

/// How text reached the phone, as an action's answer says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeRoute {
    /// `input text` (printable ASCII).
    InputText,
    /// ADBKeyBoard's `ADB_INPUT_B64` broadcast.
    AdbKeyboard,
}

impl TypeRoute {
    /// The route's name in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            TypeRoute::InputText => "adb input text",
            TypeRoute::AdbKeyboard => "ADBKeyBoard broadcast (ADB_INPUT_B64)",
        }
    }
}

/// Whether `input text` can type `text` (printable ASCII and spaces).
pub fn input_text_can_type(text: &str) -> bool {
    text.chars().all(|c| c.is_ascii_graphic() || c == ' ')
}

/// Whether `ime list -s` lists ADBKeyBoard among the enabled input methods.
pub fn lists_adb_ime(said: &str) -> bool {
    said.lines().any(|l| l.trim() == ADB_IME)
}

/// The argv that types `chunk` through ADBKeyBoard.
pub fn broadcast_argv(chunk: &str) -> Vec<String> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(chunk.as_bytes());
    [
        "am",
        "broadcast",
        "-a",
        "ADB_INPUT_B64",
        "--es",
        "msg",
        &b64,
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Whether `am broadcast` said the broadcast was delivered.
pub fn broadcast_delivered(said: &str) -> bool {
    said.contains("Broadcast completed")
}

/// `text` in pieces of at most `max` characters (never splitting a character).
pub fn chunks(text: &str, max: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(max.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_goes_by_input_text_and_the_rest_by_the_input_method() {
        assert!(input_text_can_type("Hello, world! ~"));
        assert!(!input_text_can_type("苏州"));
        assert!(!input_text_can_type("café"));
        assert!(!input_text_can_type("a\tb"));
    }

    #[test]
    fn the_broadcast_carries_base64_and_long_text_is_cut_between_characters() {
        assert_eq!(
            broadcast_argv("苏州 ok"),
            vec![
                "am",
                "broadcast",
                "-a",
                "ADB_INPUT_B64",
                "--es",
                "msg",
                "6IuP5beeIG9r"
            ]
        );
        assert_eq!(chunks("苏州abc", 2), vec!["苏州", "ab", "c"]);
        assert_eq!(chunks("", 5), Vec::<String>::new());
        assert!(lists_adb_ime(
            "com.android.inputmethod.latin/.LatinIME\ncom.android.adbkeyboard/.AdbIME\n"
        ));
        assert!(!lists_adb_ime("com.android.inputmethod.latin/.LatinIME\n"));
        assert!(broadcast_delivered(
            "Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n"
        ));
    }
}
