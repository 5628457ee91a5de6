//! Quoting an argv for the device's shell: adb sends a command as one string that the device
//! runs with `sh -c`, so every argument must reach the program as the literal it was.

use crate::error::AdbError;

/// Characters that need no quoting.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c)
}

/// One argument as the shell reads it back unchanged: plain words stay, anything else is put
/// in single quotes (a `'` inside becomes `'\''`).
fn quote_one(arg: &str) -> String {
    if !arg.is_empty() && arg.chars().all(is_plain) {
        return arg.to_owned();
    }
    format!("'{}'", arg.replace('\'', r"'\''"))
}

/// The command line that makes the device's `sh -c` run `argv` with exactly these arguments
/// (no expansion, no second command). A NUL byte cannot be carried: an error naming it.
pub fn quote_command<S: AsRef<str>>(argv: &[S]) -> Result<String, AdbError> {
    let mut words = Vec::with_capacity(argv.len());
    for (index, arg) in argv.iter().enumerate() {
        let arg = arg.as_ref();
        if arg.contains('\0') {
            return Err(AdbError::NulInArgument(index));
        }
        words.push(quote_one(arg));
    }
    Ok(words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `sh -c` makes of `line`: the arguments `printf '%s\0'` receives.
    fn through_sh(line: &str) -> Vec<String> {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s\\0' {line}"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{line}");
        let text = String::from_utf8(out.stdout).unwrap();
        text.split_terminator('\0').map(str::to_owned).collect()
    }

    #[test]
    fn hostile_arguments_reach_the_program_literally() {
        let hostile = [
            "plain",
            "two words",
            "a;b",
            "$(touch /tmp/deft-adb-quote-pwned)",
            "`id`",
            "it's",
            "\"double\"",
            "line\nbreak",
            "",
            "*",
            "~",
            "a\\b",
            "'",
            "&& exit 3 |",
        ];
        let line = quote_command(&hostile).unwrap();
        assert_eq!(through_sh(&line), hostile);
        assert!(!std::path::Path::new("/tmp/deft-adb-quote-pwned").exists());
    }

    #[test]
    fn plain_words_stay_readable() {
        assert_eq!(
            quote_command(&["input", "tap", "10", "20"]).unwrap(),
            "input tap 10 20"
        );
        assert_eq!(quote_command(&["echo", "it's"]).unwrap(), r"echo 'it'\''s'");
    }

    #[test]
    fn a_nul_byte_is_refused() {
        let err = quote_command(&["echo", "a\0b"]).unwrap_err();
        assert!(matches!(err, AdbError::NulInArgument(1)));
    }
}
