//! A conversation's title, as a person or a run's goal gives it.

/// Longest title kept.
pub const MAX_TITLE_CHARS: usize = 120;

/// A title: trimmed, one line, at most [`MAX_TITLE_CHARS`].
pub fn clean_title(raw: &str) -> String {
    let one_line: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut t: String = one_line.chars().take(MAX_TITLE_CHARS).collect();
    if one_line.chars().count() > MAX_TITLE_CHARS {
        t.push('…');
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_short_line() {
        assert_eq!(clean_title("  open\n mousepad  "), "open mousepad");
        let long = "x".repeat(200);
        assert_eq!(clean_title(&long).chars().count(), MAX_TITLE_CHARS + 1);
        assert_eq!(clean_title("   "), "");
    }
}
