//! Reading a GNU program's arguments as `getopt_long` does, for the checks that need to know
//! which words are options, which are option values and which are operands: `--` ends the
//! options, `-abc` is a cluster of short options in which a value-taking letter takes the rest
//! of the word (or the next word), `--name=value` or `--name value` for long options with
//! unambiguous prefixes, and options may follow operands.

use crate::option_rules::OptionRules;

/// One option or operand of an argument list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Word<'a> {
    /// A short option letter, with the word that holds it.
    Short {
        /// The whole word (`-nro`).
        word: &'a str,
        /// The letter.
        letter: char,
    },
    /// A long option as written (`--out` of `--out=x`), with the word that holds it.
    Long {
        /// The whole word.
        word: &'a str,
        /// The name as written, before any `=`.
        name: &'a str,
    },
    /// A word that is neither an option nor an option's value.
    Operand(&'a str),
}

/// `args` as `getopt_long` reads them under `rules`; option values are left out.
pub(crate) fn words<'a>(rules: &OptionRules, args: &'a [String]) -> Vec<Word<'a>> {
    let mut out = Vec::new();
    let mut only_operands = false;
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        if only_operands || word == "-" || !word.starts_with('-') {
            out.push(Word::Operand(word));
            continue;
        }
        if word == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            out.push(Word::Long { word, name });
            if !attached && long_takes_value(rules, name) {
                iter.next();
            }
            continue;
        }
        let cluster = &word[1..];
        for (at, letter) in cluster.char_indices() {
            out.push(Word::Short { word, letter });
            if rules.short_with_value.contains(letter) {
                if at + letter.len_utf8() == cluster.len() {
                    iter.next();
                }
                break;
            }
            if rules.short_optional_value.contains(letter) {
                break;
            }
        }
    }
    out
}

/// The long option `name` (as written, maybe abbreviated) stands for, when it is one of
/// `candidates`' unambiguous prefixes among every option `rules` knows.
pub(crate) fn long_means(rules: &OptionRules, name: &str, candidate: &str) -> bool {
    if name.is_empty() || !candidate.starts_with(name) {
        return false;
    }
    let known = rules.long_with_value.iter().chain(rules.long_flags);
    name == candidate || known.filter(|l| l.starts_with(name)).count() == 1
}

/// Whether `--name` (no `=`) takes the next word as its value: an exact value-taking name, or an
/// abbreviation of exactly one value-taking name and of no flag. Anything ambiguous is treated as
/// a flag, so the next word is still checked.
fn long_takes_value(rules: &OptionRules, name: &str) -> bool {
    if rules.long_with_value.contains(&name) {
        return true;
    }
    if rules.long_flags.contains(&name) {
        return false;
    }
    let valued = rules
        .long_with_value
        .iter()
        .filter(|l| l.starts_with(name))
        .count();
    let flags = rules
        .long_flags
        .iter()
        .filter(|l| l.starts_with(name))
        .count();
    valued == 1 && flags == 0
}
