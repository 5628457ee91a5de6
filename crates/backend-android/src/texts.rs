//! What the Android backend says to a model or a person: each text once, tested verbatim.

/// A dump that is not XML at all.
pub fn dump_unreadable(detail: &str) -> String {
    format!("the phone's screen dump is not readable XML ({detail}); take the screen again")
}

/// A dump that is XML but holds no view.
pub const DUMP_EMPTY: &str = "the phone's screen dump holds no view (the screen may be off or locked); wake it and take the screen again";

/// What `uiautomator` printed instead of a dump.
pub fn dump_failed(said: &str) -> String {
    format!("uiautomator could not dump the screen: {said}")
}

/// A command the phone refused.
pub fn refused(command: &str, said: &str) -> String {
    format!("the phone refused `{command}`: {said}")
}

/// Text `input text` cannot type.
pub fn not_ascii(text: &str) -> String {
    format!(
        "adb's `input text` types printable ASCII only; {text:?} needs an input method on the phone"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_read_as_written() {
        assert_eq!(
            dump_unreadable("unexpected end"),
            "the phone's screen dump is not readable XML (unexpected end); take the screen again"
        );
        assert_eq!(
            DUMP_EMPTY,
            "the phone's screen dump holds no view (the screen may be off or locked); wake it and take the screen again"
        );
        assert_eq!(
            dump_failed("ERROR: could not get idle state."),
            "uiautomator could not dump the screen: ERROR: could not get idle state."
        );
        assert_eq!(
            refused(
                "input tap 1 2",
                "java.lang.SecurityException: Injecting input events requires INJECT_EVENTS"
            ),
            "the phone refused `input tap 1 2`: java.lang.SecurityException: Injecting input events requires INJECT_EVENTS"
        );
        assert_eq!(
            not_ascii("苏州"),
            "adb's `input text` types printable ASCII only; \"苏州\" needs an input method on the phone"
        );
    }
}
