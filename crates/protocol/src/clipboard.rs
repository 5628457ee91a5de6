//! The clipboard tools both device backends serve (docs/observation.md "Clipboard"):
//! `set_clipboard {text}` puts text on the device's clipboard, `get_clipboard {}` reads its
//! text. Their arguments are [`ClipboardArgs`] in `tool_args`; this module holds their one
//! answer shape and the texts both give, so the task runner's `clipboard` step and a model
//! read them the same way whatever the device.
//!
//! ```
//! use deft_protocol::clipboard::read_answer;
//! use deft_protocol::tool_args::ClipboardArgs;
//! let a: ClipboardArgs = serde_json::from_value(serde_json::json!({"text": "苏州"})).unwrap();
//! assert_eq!(a.checked_text().unwrap(), "苏州");
//! assert_eq!(read_answer("苏州")["chars"], 2);
//! ```

use serde_json::{Value, json};

pub use crate::tool_args::{ClipboardArgs, MAX_CLIPBOARD_CHARS};

/// `set_clipboard`'s description (the same on every device).
pub const SET_DESCRIPTION: &str = "Put text on the device's clipboard (any Unicode, at most 100,000 characters), as if it had been copied: paste it into a control with keyboard_input \"^v\". Answers {message, chars}.";

/// `get_clipboard`'s description (the same on every device).
pub const GET_DESCRIPTION: &str = "Read the text on the device's clipboard, whoever copied it (an application's ^c, or set_clipboard). Answers {text, chars}; an empty clipboard, or one holding no text (an image), is an error that says so.";

/// What `set_clipboard` answers: `{"message", "chars"}`.
pub fn set_answer(text: &str) -> Value {
    let chars = text.chars().count();
    json!({
        "message": format!(
            "The clipboard holds the text now ({chars} character{}); paste it with keyboard_input \"^v\".",
            if chars == 1 { "" } else { "s" }
        ),
        "chars": chars,
    })
}

/// What `get_clipboard` answers: `{"text", "chars"}`.
pub fn read_answer(text: &str) -> Value {
    json!({"text": text, "chars": text.chars().count()})
}

/// `get_clipboard` when nothing was copied.
pub const EMPTY: &str = "The clipboard is empty: nothing was copied, or the application that copied has closed. Copy text first (select it and press keyboard_input \"^c\"), or put it there with set_clipboard.";

/// `get_clipboard` when what was copied is not text; `offered` names the forms the owner
/// offers (MIME types or X targets).
pub fn not_text(offered: &[String]) -> String {
    let what = if offered.is_empty() {
        String::from("no text form")
    } else {
        format!("only {}", offered.join(", "))
    };
    format!(
        "The clipboard holds no text: the application that copied last offers {what}. Copy text instead, or put it there with set_clipboard."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_counts_characters_and_says_itself() {
        let ok = ClipboardArgs {
            text: "東".repeat(MAX_CLIPBOARD_CHARS),
        };
        assert!(ok.checked_text().is_ok(), "characters, not bytes");
        let long = ClipboardArgs {
            text: "a".repeat(MAX_CLIPBOARD_CHARS + 1),
        };
        assert_eq!(
            long.checked_text().unwrap_err(),
            "text is 100001 characters; set_clipboard takes at most 100000."
        );
        assert!(serde_json::from_value::<ClipboardArgs>(json!({})).is_err());
    }

    #[test]
    fn answers_count_characters() {
        assert_eq!(set_answer("x")["chars"], 1);
        assert!(
            set_answer("x")["message"]
                .as_str()
                .unwrap()
                .contains("(1 character)")
        );
        assert_eq!(read_answer("Zoë ✓"), json!({"text": "Zoë ✓", "chars": 5}));
        assert!(not_text(&["image/png".into()]).contains("offers only image/png"));
    }
}
