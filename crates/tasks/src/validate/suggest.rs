//! "Did you mean": the closest of some names to a word, for a mistyped step type, field or
//! variable.

/// The candidate closest to `word` by edit distance (case ignored), if it is close enough to
/// be a typo: at most a third of the word's length (at least 1, at most 3), and fewer edits
/// than the word has characters (`z` is not a typo of `x`).
pub(super) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let w = word.to_lowercase();
    let len = w.chars().count();
    let limit = (len / 3).clamp(1, 3).min(len.saturating_sub(1));
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&w, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn typos_find_their_word_and_strangers_find_none() {
        let types = ["click", "long_click", "wait", "wait_el"];
        assert_eq!(closest("clik", types), Some("click"));
        assert_eq!(closest("Click", types), Some("click"));
        assert_eq!(closest("wiat_el", types), Some("wait_el"));
        assert_eq!(closest("scroll", types), None);
        assert_eq!(closest("", types), None);
        assert_eq!(closest("z", ["x", "y"]), None);
        assert_eq!(closest("ap", ["app"]), Some("app"));
    }
}
