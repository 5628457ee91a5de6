//! The option syntax of one GNU program as the argument checks read it (`getopt` splits an
//! argument list by it; the policy's and the guard's rules are written in it), and how its
//! refused options and operand rule read in a refusal.

use crate::texts;

/// The option syntax of one GNU program, as far as the checks need it.
///
/// Arguments are scanned the way `getopt_long` reads them: `--` ends the options, `-abc` is a
/// cluster of short options in which a value-taking letter takes the rest of the word (or the next
/// word), `--name=value` or `--name value` for long options, with unambiguous prefixes accepted.
/// A long option is refused when its name is a prefix of a refused one, so an abbreviation cannot
/// slip through. Words that are option values are skipped, exactly as the program would.
#[derive(Debug, PartialEq, Eq)]
pub struct OptionRules {
    /// Refused short options.
    pub denied_short: &'static str,
    /// Refused long options (without `--`).
    pub denied_long: &'static [&'static str],
    /// Short options that take a value (attached or as the next word).
    pub short_with_value: &'static str,
    /// Short options whose value may only be attached (`-Iseconds`).
    pub short_optional_value: &'static str,
    /// Long options that take a required value.
    pub long_with_value: &'static [&'static str],
    /// Every other long option, needed to tell an abbreviation's meaning.
    pub long_flags: &'static [&'static str],
    /// What the operands may be.
    pub operands: Operands,
    /// Why, for the refusal text.
    pub why: &'static str,
}

/// A rule for the words that are not options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Any operands.
    Any,
    /// Only `+FORMAT` operands (`date`: anything else sets the clock).
    PlusFormat,
    /// At most this many operands (`uniq`: the second one is an output file).
    AtMost(usize),
}

impl OptionRules {
    /// The refused options (`-o, --out`), or `None` when it refuses none.
    pub(crate) fn denied(&self) -> Option<String> {
        let short = self.denied_short.chars().map(|c| format!("-{c}"));
        let long = self.denied_long.iter().map(|l| format!("--{l}"));
        let all: Vec<String> = short.chain(long).collect();
        (!all.is_empty()).then(|| all.join(", "))
    }
}

impl Operands {
    /// The rule as the texts take it.
    pub(crate) fn as_text(self) -> texts::OperandRule {
        match self {
            Operands::Any => texts::OperandRule::Any,
            Operands::PlusFormat => texts::OperandRule::PlusFormat,
            Operands::AtMost(n) => texts::OperandRule::AtMost(n),
        }
    }
}
