//! The one control matcher: a [`Selector`] scored against a window's listing. The model (through
//! `find_controls`), the task runner and the dataflow pipeline all locate controls with it, so a
//! step that matched for one matches for the others. Pure: it reads [`Control`]s and their depths
//! in document order and never looks anything up.
//!
//! Scores are 0–100: `exact` and `contains` give 100 or 0, `regex` 100 on a match, `fuzzy` the
//! normalized partial ratio of the text against the name or value (the best-aligned window of the
//! longer string), counted as a match at [`MatchOptions::fuzzy_threshold`] (70) or above. Ties
//! go to document order, and the result says so.
//!
//! ```
//! use deft_protocol::observation::{Control, ControlType};
//! use deft_protocol::selector::{find, MatchOptions, Selector};
//! let controls = [
//!     Control::new("1", ControlType::Button, "Save"),
//!     Control::new("2", ControlType::Button, "Save As…"),
//! ];
//! let sel: Selector = serde_json::from_value(serde_json::json!({"text": "save", "match": "exact"})).unwrap();
//! let found = find(&controls, &[0, 0], &sel, &MatchOptions::default()).unwrap();
//! assert_eq!(found.chosen().unwrap().id, "1");
//! ```

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::observation::{Control, ControlType};

/// How a selector's `text` compares with a control's name and value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MatchMode {
    /// Equal after trimming, collapsing whitespace and ignoring case.
    Exact,
    /// The text occurs in the name or value (same normalization). The default.
    #[default]
    Contains,
    /// Normalized partial ratio ≥ the threshold (70 unless configured).
    Fuzzy,
    /// A regular expression (Rust `regex` syntax) found in the raw name or value; `(?i)` for
    /// case-insensitive.
    Regex,
}

impl MatchMode {
    /// The wire name (`"exact"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            MatchMode::Exact => "exact",
            MatchMode::Contains => "contains",
            MatchMode::Fuzzy => "fuzzy",
            MatchMode::Regex => "regex",
        }
    }
}

/// Which control a step or tool means, by what a person sees: its text and type, never its
/// coordinates or id (ids live as long as the control; a selector outlives them).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Selector {
    /// Compared with the control's name and its value (the better score counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The control's listed type (`button`, `edit`, … of docs/observation.md), case ignored.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// How `text` compares (default `contains`).
    #[serde(rename = "match", default)]
    pub mode: MatchMode,
    /// Which of several equally good matches, counted from 0 in document order (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Only controls inside the subtree of the control this selector picks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<Box<Selector>>,
}

impl Selector {
    /// A `contains` selector for `text`.
    pub fn text(text: impl Into<String>) -> Self {
        Selector {
            text: Some(text.into()),
            ..Selector::default()
        }
    }

    /// Builder: the match mode.
    pub fn with_mode(mut self, mode: MatchMode) -> Self {
        self.mode = mode;
        self
    }

    /// Builder: the control type.
    pub fn with_type(mut self, kind: impl Into<String>) -> Self {
        self.kind = Some(kind.into());
        self
    }

    /// Every reason this selector cannot match anything, each with its path below `path`
    /// (`within.text: …`); empty when it is well formed. [`find`] refuses the same things.
    pub fn problems(&self, path: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_problems(path, 0, &mut out);
        out
    }

    fn collect_problems(&self, path: &str, depth: usize, out: &mut Vec<String>) {
        let at = |field: &str| {
            if path.is_empty() {
                field.to_owned()
            } else {
                format!("{path}.{field}")
            }
        };
        let text = self
            .text
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        let kind = self
            .kind
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        if text.is_none() && kind.is_none() {
            let whole = if path.is_empty() { "selector" } else { path };
            out.push(format!("{whole}: a selector needs a text or a type"));
        }
        if let Some(kind) = kind
            && parse_type(kind).is_none()
        {
            out.push(format!(
                "{}: unknown control type {kind:?}; use a type word of docs/observation.md such as button, edit, text, link, listitem",
                at("type")
            ));
        }
        if let (Some(text), MatchMode::Regex) = (text, self.mode)
            && let Err(e) = compile_regex(text)
        {
            out.push(format!("{}: {e}", at("text")));
        }
        if let Some(inner) = &self.within {
            if depth >= MAX_WITHIN_DEPTH {
                out.push(format!(
                    "{}: within nests deeper than {MAX_WITHIN_DEPTH}",
                    at("within")
                ));
            } else {
                inner.collect_problems(&at("within"), depth + 1, out);
            }
        }
    }
}

impl fmt::Display for Selector {
    /// A short human form: `button "Save" (exact) #1 within dialog "Export"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(kind) = &self.kind {
            parts.push(kind.clone());
        }
        if let Some(text) = &self.text {
            parts.push(format!("{text:?}"));
        }
        if self.mode != MatchMode::Contains {
            parts.push(format!("({})", self.mode.as_str()));
        }
        if let Some(i) = self.index {
            parts.push(format!("#{i}"));
        }
        f.write_str(&parts.join(" "))?;
        if let Some(inner) = &self.within {
            write!(f, " within {inner}")?;
        }
        Ok(())
    }
}

/// How deep `within` may nest.
pub const MAX_WITHIN_DEPTH: usize = 8;

/// Longest regex pattern, in bytes.
pub const MAX_REGEX_LEN: usize = 1000;

/// Matcher settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatchOptions {
    /// The lowest fuzzy score that counts as a match (0–100).
    pub fuzzy_threshold: u8,
}

impl Default for MatchOptions {
    fn default() -> Self {
        MatchOptions {
            fuzzy_threshold: DEFAULT_FUZZY_THRESHOLD,
        }
    }
}

/// The fuzzy threshold unless configured.
pub const DEFAULT_FUZZY_THRESHOLD: u8 = 70;

/// A selector that cannot be used (the same texts as [`Selector::problems`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorError(pub Vec<String>);

impl fmt::Display for SelectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("; "))
    }
}

impl std::error::Error for SelectorError {}

/// What a control matched on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchedOn {
    /// The accessible name.
    Name,
    /// The value (an edit's text, a combo box's selection).
    Value,
    /// The selector had no text; the type alone matched.
    Type,
}

/// How much of the asked text the matched name or value covers. Among equal scores a better
/// fit wins: a control named exactly "Quarterly Review" beats the menu item "View", whose name
/// a fuzzy partial ratio also scores 100 against "Quarterly Review".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fit {
    /// Only part of the asked text lines up with the control's text (a fuzzy alignment, or a
    /// control text shorter than the asked one).
    Partial,
    /// The whole asked text occurs inside a longer name or value.
    Contains,
    /// The whole name or value is the asked text (after normalizing), or the regex matched it
    /// whole, or the selector had no text.
    Exact,
}

impl Fit {
    /// The wire name (`"exact"`, `"contains"`, `"partial"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Fit::Partial => "partial",
            Fit::Contains => "contains",
            Fit::Exact => "exact",
        }
    }
}

/// One control that matched, with its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Match<'a> {
    /// Its position in the listing given to [`find`].
    pub position: usize,
    /// The control.
    pub control: &'a Control,
    /// 1–100.
    pub score: u8,
    /// How much of the asked text it covers (ranks equal scores).
    pub fit: Fit,
    /// Name or value.
    pub on: MatchedOn,
    /// For a partial fit, how many characters of the asked text the matched text lines up
    /// with (the one that covers more ranks first among equal scores); 0 for the other fits.
    covered: usize,
}

impl Match<'_> {
    /// What ranks matches, best highest: the score, then the fit, then the text covered.
    fn rank(&self) -> (u8, Fit, usize) {
        (self.score, self.fit, self.covered)
    }
}

/// The matches of one selector, best first (score, then fit, then document order), and which
/// one it picks.
#[derive(Debug, Clone, PartialEq)]
pub struct Found<'a> {
    /// Every match, best first.
    pub matches: Vec<Match<'a>>,
    /// Index into `matches` of the one the selector picks (its `index` among the best-ranked),
    /// `None` when nothing matched or `index` is past the last equal match.
    pub chosen: Option<usize>,
    /// How many matches share the best score and fit.
    pub best_count: usize,
    /// Why nothing was chosen or how a tie was broken, for a person to read; `None` when one
    /// control matched clearly.
    pub note: Option<String>,
}

impl<'a> Found<'a> {
    /// The control the selector picks.
    pub fn chosen(&self) -> Option<&'a Control> {
        self.chosen.map(|i| self.matches[i].control)
    }

    /// The picked match.
    pub fn chosen_match(&self) -> Option<&Match<'a>> {
        self.chosen.map(|i| &self.matches[i])
    }
}

/// Scores `selector` against `controls` (document order) whose nesting depths are `depths`
/// (same length; a control's subtree is the run of deeper controls after it).
pub fn find<'a>(
    controls: &'a [Control],
    depths: &[u32],
    selector: &Selector,
    opts: &MatchOptions,
) -> Result<Found<'a>, SelectorError> {
    let problems = selector.problems("");
    if !problems.is_empty() {
        return Err(SelectorError(problems));
    }
    let compiled = Compiled::new(selector)?;
    let range = match &selector.within {
        None => 0..controls.len(),
        Some(inner) => {
            let root = find(controls, depths, inner, opts)?;
            match root.chosen {
                Some(i) => subtree(depths, root.matches[i].position),
                None => {
                    return Ok(Found {
                        matches: Vec::new(),
                        chosen: None,
                        best_count: 0,
                        note: Some(format!("nothing matches the within selector {inner}")),
                    });
                }
            }
        }
    };
    let mut matches: Vec<Match<'a>> = range
        .filter_map(|position| {
            let control = &controls[position];
            let (
                Scored {
                    score,
                    fit,
                    covered,
                },
                on,
            ) = compiled.score(control, opts)?;
            Some(Match {
                position,
                control,
                score,
                fit,
                on,
                covered,
            })
        })
        .collect();
    matches.sort_by(|a, b| b.rank().cmp(&a.rank()).then(a.position.cmp(&b.position)));
    Ok(pick(matches, selector.index.unwrap_or(0)))
}

fn pick(matches: Vec<Match<'_>>, index: usize) -> Found<'_> {
    let best = matches.first().map(Match::rank);
    let best_count = matches
        .iter()
        .take_while(|m| Some(m.rank()) == best)
        .count();
    let (chosen, note) = if matches.is_empty() {
        (None, Some("no control matches".to_owned()))
    } else if index >= best_count {
        (
            None,
            Some(format!(
                "index {index} asked, but only {best_count} control{} share the best match",
                if best_count == 1 { "" } else { "s" }
            )),
        )
    } else if best_count > 1 {
        (
            Some(index),
            Some(format!(
                "{best_count} controls score {}; index {index} in document order picks id {}",
                matches[0].score, matches[index].control.id
            )),
        )
    } else {
        (Some(0), None)
    };
    Found {
        matches,
        chosen,
        best_count,
        note,
    }
}

/// Positions of `root` and every control nested in it.
/// The positions of control `root` (by id) and its descendants in a listing: `root` and the
/// controls after it that are nested deeper (`depths[i]` counts the listed controls enclosing
/// control `i`). `None` when `root` is not in the listing (its control is gone).
pub fn subtree_of(
    controls: &[Control],
    depths: &[u32],
    root: &str,
) -> Option<std::ops::Range<usize>> {
    let start = controls.iter().position(|c| c.id == root)?;
    (start < depths.len()).then(|| subtree(depths, start))
}

fn subtree(depths: &[u32], root: usize) -> std::ops::Range<usize> {
    let d = depths.get(root).copied().unwrap_or(0);
    let end = depths[root + 1..]
        .iter()
        .position(|&x| x <= d)
        .map_or(depths.len(), |n| root + 1 + n);
    root..end
}

fn parse_type(word: &str) -> Option<ControlType> {
    word.trim().to_ascii_lowercase().parse().ok()
}

fn compile_regex(pattern: &str) -> Result<regex::Regex, String> {
    if pattern.len() > MAX_REGEX_LEN {
        return Err(format!(
            "the regex is {} bytes; at most {MAX_REGEX_LEN}",
            pattern.len()
        ));
    }
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| format!("the regex does not compile: {}", one_line(&e.to_string())))
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A selector ready to score controls.
struct Compiled {
    kind: Option<ControlType>,
    text: Option<Text>,
}

enum Text {
    Plain { needle: String, mode: MatchMode },
    Fuzzy(Fuzzy),
    Regex(regex::Regex),
}

impl Compiled {
    fn new(selector: &Selector) -> Result<Self, SelectorError> {
        let kind = selector.kind.as_deref().and_then(parse_type);
        let text = match selector.text.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(t) => Some(match selector.mode {
                MatchMode::Regex => {
                    Text::Regex(compile_regex(t).map_err(|e| SelectorError(vec![e]))?)
                }
                MatchMode::Fuzzy => Text::Fuzzy(Fuzzy::new(&normalize(t))),
                mode => Text::Plain {
                    needle: normalize(t),
                    mode,
                },
            }),
        };
        Ok(Compiled { kind, text })
    }

    fn score(&self, control: &Control, opts: &MatchOptions) -> Option<(Scored, MatchedOn)> {
        if let Some(kind) = self.kind
            && control.kind != kind
        {
            return None;
        }
        let Some(text) = &self.text else {
            return Some((Scored::full(Fit::Exact), MatchedOn::Type));
        };
        let name = text.score(&control.name, opts);
        let value = control.value.as_deref().and_then(|v| text.score(v, opts));
        match (name, value) {
            (None, None) => None,
            (Some(n), Some(v)) if v.rank() > n.rank() => Some((v, MatchedOn::Value)),
            (Some(n), _) => Some((n, MatchedOn::Name)),
            (None, Some(v)) => Some((v, MatchedOn::Value)),
        }
    }
}

/// How one name or value matched.
#[derive(Debug, Clone, Copy)]
struct Scored {
    score: u8,
    fit: Fit,
    covered: usize,
}

impl Scored {
    /// A score of 100 on the whole asked text (`covered` ranks partial fits only).
    fn full(fit: Fit) -> Self {
        Scored {
            score: 100,
            fit,
            covered: 0,
        }
    }

    fn rank(self) -> (u8, Fit, usize) {
        (self.score, self.fit, self.covered)
    }
}

impl Text {
    /// How `hay` (a name or value) matches, `None` when it does not.
    fn score(&self, hay: &str, opts: &MatchOptions) -> Option<Scored> {
        match self {
            Text::Plain { needle, mode } => {
                let hay = normalize(hay);
                if hay == *needle {
                    Some(Scored::full(Fit::Exact))
                } else if *mode == MatchMode::Contains && hay.contains(needle.as_str()) {
                    Some(Scored::full(Fit::Contains))
                } else {
                    None
                }
            }
            Text::Regex(re) => {
                let m = re.find(hay)?;
                let whole = m.start() == 0 && m.end() == hay.len();
                Some(Scored::full(if whole { Fit::Exact } else { Fit::Contains }))
            }
            Text::Fuzzy(f) => {
                let normal = normalize(hay);
                let s = f.partial_ratio(&normal);
                if s < opts.fuzzy_threshold || s == 0 {
                    return None;
                }
                if normal == f.text {
                    return Some(Scored::full(Fit::Exact));
                }
                if normal.contains(f.text.as_str()) {
                    return Some(Scored::full(Fit::Contains));
                }
                // The partial ratio aligns the shorter string with a window of the longer.
                Some(Scored {
                    score: s,
                    fit: Fit::Partial,
                    covered: f.chars.len().min(normal.chars().count()),
                })
            }
        }
    }
}

/// Lowercase, whitespace runs collapsed to one space, ends trimmed.
fn normalize(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A fuzzy needle: its characters and, for needles of up to 64 characters, the bit masks of
/// Hyyrö's bit-parallel LCS (ASCII characters in a table, others in a list).
struct Fuzzy {
    text: String,
    chars: Vec<char>,
    ascii: Box<[u64; 128]>,
    masks: Vec<(char, u64)>,
}

impl Fuzzy {
    fn new(needle: &str) -> Self {
        let chars: Vec<char> = needle.chars().collect();
        let mut ascii = Box::new([0u64; 128]);
        let mut masks: Vec<(char, u64)> = Vec::new();
        if chars.len() <= 64 {
            for (i, &c) in chars.iter().enumerate() {
                if c.is_ascii() {
                    ascii[c as usize] |= 1 << i;
                    continue;
                }
                match masks.iter_mut().find(|(m, _)| *m == c) {
                    Some((_, bits)) => *bits |= 1 << i,
                    None => masks.push((c, 1 << i)),
                }
            }
        }
        Fuzzy {
            text: needle.to_owned(),
            chars,
            ascii,
            masks,
        }
    }

    /// The positions of `c` in the needle, as bits.
    fn mask(&self, c: char) -> u64 {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.masks
                .iter()
                .find(|(mc, _)| *mc == c)
                .map_or(0, |(_, b)| *b)
        }
    }

    /// The best `ratio` of the shorter string against every window of the longer one of the
    /// shorter's length (the whole strings when they are as long): 0–100.
    fn partial_ratio(&self, hay: &str) -> u8 {
        let hay: Vec<char> = hay.chars().collect();
        if self.chars.is_empty() || hay.is_empty() {
            return 0;
        }
        let (short, long, masked) = if self.chars.len() <= hay.len() {
            (&self.chars[..], &hay[..], true)
        } else {
            (&hay[..], &self.chars[..], false)
        };
        let m = short.len();
        // The bit-parallel LCS takes the shorter string as its pattern: the needle's masks, or
        // a name's or value's when the needle is the longer one.
        let hay_masks;
        let pattern = if m > 64 {
            None
        } else if masked {
            Some(self)
        } else {
            hay_masks = Fuzzy::new(&short.iter().collect::<String>());
            Some(&hay_masks)
        };
        let mut best = 0usize;
        for start in 0..=long.len() - m {
            let window = &long[start..start + m];
            let lcs = match pattern {
                Some(p) => p.lcs_bits(window),
                None => lcs_dp(short, window),
            };
            best = best.max(lcs);
            if best == m {
                break;
            }
        }
        // ratio = 2·LCS / (|a| + |b|), both of length m here.
        u8::try_from(best * 100 / m).unwrap_or(100)
    }

    /// LCS length of the needle and `other` (Hyyrö 2004): one word operation per character.
    fn lcs_bits(&self, other: &[char]) -> usize {
        let m = self.chars.len();
        let all = if m == 64 { u64::MAX } else { (1u64 << m) - 1 };
        let mut v = all;
        for &c in other {
            let mask = self.mask(c);
            let u = v & mask;
            v = (v.wrapping_add(u) | (v & !mask)) & all;
        }
        m - (v.count_ones() as usize)
    }
}

/// LCS length by dynamic programming (needles longer than 64 characters).
fn lcs_dp(a: &[char], b: &[char]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for &ca in a {
        let mut prev = 0;
        for (j, &cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if ca == cb { prev + 1 } else { up.max(row[j]) };
            prev = up;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sel(v: serde_json::Value) -> Selector {
        serde_json::from_value(v).unwrap()
    }

    fn listing() -> (Vec<Control>, Vec<u32>) {
        let c = |id: &str, kind, name: &str| Control::new(id, kind, name);
        let controls = vec![
            c("1", ControlType::Dialog, "Export"),
            c("2", ControlType::Button, "Save"),
            c("3", ControlType::Edit, "File name").with_value("report.pdf"),
            c("4", ControlType::Button, "Cancel"),
            c("5", ControlType::Button, "Save"),
            c("6", ControlType::Text, "Saved 3 files"),
        ];
        (controls, vec![0, 1, 1, 1, 0, 0])
    }

    #[test]
    fn exact_and_contains_score_all_or_nothing_and_ties_go_to_document_order() {
        let (c, d) = listing();
        let f = find(
            &c,
            &d,
            &sel(json!({"text": " SAVE ", "match": "exact"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(
            f.matches
                .iter()
                .map(|m| m.control.id.as_str())
                .collect::<Vec<_>>(),
            ["2", "5"]
        );
        assert!(f.matches.iter().all(|m| m.score == 100));
        assert_eq!(f.chosen().unwrap().id, "2");
        assert_eq!(f.best_count, 2);
        assert!(
            f.note.as_deref().unwrap().contains("2 controls score 100"),
            "{:?}",
            f.note
        );
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "save"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(f.matches.len(), 3, "contains also finds 'Saved 3 files'");
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "save", "index": 1, "type": "button"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(f.chosen().unwrap().id, "5");
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "save", "index": 2, "type": "button"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(f.chosen, None);
        assert!(f.note.unwrap().contains("only 2 controls"));
    }

    #[test]
    fn values_match_as_well_as_names() {
        let (c, d) = listing();
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "report"})),
            &MatchOptions::default(),
        )
        .unwrap();
        let m = f.chosen_match().unwrap();
        assert_eq!((m.control.id.as_str(), m.on), ("3", MatchedOn::Value));
    }

    #[test]
    fn within_narrows_to_the_subtree_of_the_picked_root() {
        let (c, d) = listing();
        let f = find(&c, &d, &sel(json!({"text": "Save", "match": "exact", "within": {"type": "dialog", "text": "export"}})), &MatchOptions::default()).unwrap();
        assert_eq!(f.matches.len(), 1);
        assert_eq!(f.chosen().unwrap().id, "2");
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "Save", "within": {"text": "Nope"}})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert!(f.chosen.is_none());
        assert!(f.note.unwrap().contains("within"));
    }

    #[test]
    fn fuzzy_heals_a_renamed_control_and_respects_the_threshold() {
        let (c, d) = listing();
        // A typo: "cancl" against the 5-character windows of "cancel" shares 4 characters.
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "Cancl", "match": "fuzzy"})),
            &MatchOptions::default(),
        )
        .unwrap();
        let m = f.chosen_match().unwrap();
        assert_eq!(m.control.id, "4");
        assert!((70..100).contains(&m.score), "{}", m.score);
        let strict = MatchOptions {
            fuzzy_threshold: 95,
        };
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "Cancl", "match": "fuzzy"})),
            &strict,
        )
        .unwrap();
        assert!(f.chosen.is_none());
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "zzzz", "match": "fuzzy"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert!(f.matches.is_empty());
    }

    #[test]
    fn a_whole_text_match_outranks_a_partial_one_of_the_same_score() {
        // The View menu comes first in document order, and "view" lines up fully with part of
        // "quarterly review": the fuzzy score is 100 for both.
        let c = |id: &str, kind, name: &str| Control::new(id, kind, name);
        let controls = vec![
            c("1", ControlType::Menuitem, "View"),
            c("2", ControlType::Text, "Quarterly Reviews"),
            c("3", ControlType::Button, "Quarterly Review"),
        ];
        let depths = [0, 0, 0];
        let fuzzy = |text: &str| {
            find(
                &controls,
                &depths,
                &sel(json!({"text": text, "match": "fuzzy"})),
                &MatchOptions::default(),
            )
            .unwrap()
        };
        let f = fuzzy("Quarterly Review");
        let ranked: Vec<_> = f
            .matches
            .iter()
            .map(|m| (m.control.id.as_str(), m.score, m.fit))
            .collect();
        assert_eq!(
            ranked,
            [
                ("3", 100, Fit::Exact),
                ("2", 100, Fit::Contains),
                ("1", 100, Fit::Partial)
            ]
        );
        assert_eq!((f.best_count, f.note.as_deref()), (1, None));
        // Without the exact control, the longer name that holds the whole text still beats the
        // menu item that holds only part of it.
        let f = find(
            &controls[..2],
            &depths[..2],
            &sel(json!({"text": "Quarterly Review", "match": "fuzzy"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(f.chosen().unwrap().id, "2");
        // contains: the control whose whole name is the text beats the one that contains it,
        // wherever it is in document order.
        let f = find(
            &controls,
            &depths,
            &sel(json!({"text": "quarterly review"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(f.chosen().unwrap().id, "3");
        assert_eq!(f.best_count, 1);
        // A regex that matches a whole name ranks above one found inside a name.
        let f = find(
            &controls,
            &depths,
            &sel(json!({"text": "Quarterly Reviews?", "match": "regex"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(
            f.matches.iter().map(|m| m.fit).collect::<Vec<_>>(),
            [Fit::Exact, Fit::Exact]
        );
        // Only the partial match left: it is still found, and says it is partial.
        let f = find(
            &controls[..1],
            &depths[..1],
            &sel(json!({"text": "Quarterly Review", "match": "fuzzy"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(f.chosen_match().unwrap().fit, Fit::Partial);
        // Asked for more than any control says: of two partial matches scoring 100, the one
        // that lines up with more of the text ranks first.
        let two = [controls[0].clone(), controls[2].clone()];
        let f = find(
            &two,
            &depths[..2],
            &sel(json!({"text": "Quarterly Review Draft", "match": "fuzzy"})),
            &MatchOptions::default(),
        )
        .unwrap();
        let ranked: Vec<_> = f
            .matches
            .iter()
            .map(|m| (m.control.id.as_str(), m.score, m.fit))
            .collect();
        assert_eq!(ranked, [("3", 100, Fit::Partial), ("1", 100, Fit::Partial)]);
        assert_eq!(f.best_count, 1);
    }

    #[test]
    fn ties_are_counted_among_equal_fits_and_say_their_fit() {
        let c = |id: &str, name: &str| Control::new(id, ControlType::Button, name);
        let controls = vec![c("1", "Save all"), c("2", "Save as"), c("3", "Save")];
        let f = find(
            &controls[..2],
            &[0, 0],
            &sel(json!({"text": "save"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(f.best_count, 2);
        assert_eq!(
            f.note.as_deref(),
            Some("2 controls score 100; index 0 in document order picks id 1")
        );
        let f = find(
            &controls,
            &[0, 0, 0],
            &sel(json!({"text": "save", "index": 1})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(f.chosen, None, "only one control is named Save");
        assert_eq!(
            f.note.as_deref(),
            Some("index 1 asked, but only 1 control share the best match")
        );
    }

    /// The same partial ratio, computed the slow way: every window through the DP.
    fn partial_ratio_slow(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        let m = short.len();
        let best = (0..=long.len() - m)
            .map(|s| lcs_dp(&short, &long[s..s + m]))
            .max()
            .unwrap();
        best * 100 / m
    }

    #[test]
    fn partial_ratio_agrees_with_the_dynamic_programme() {
        let long_needle =
            "a needle of more than sixty-four characters takes the slow path, fine".repeat(2);
        let pairs = [
            ("apples", "red apples and pears"),
            ("abc", "xaxbxc"),
            ("ünïcode", "ÜNICODE text"),
            ("kitten", "sitting"),
            ("a much longer needle", "short"),
            (
                "a needle longer than the name it is held against",
                "nme helD",
            ),
            (
                long_needle.as_str(),
                "a needle of more than sixty-four characters takes the slow way, fine, and more",
            ),
        ];
        for (a, b) in pairs {
            let (a, b) = (normalize(a), normalize(b));
            let fast = Fuzzy::new(&a).partial_ratio(&b);
            assert_eq!(usize::from(fast), partial_ratio_slow(&a, &b), "{a} / {b}");
        }
        assert_eq!(
            Fuzzy::new("apples").partial_ratio("red apples and pears"),
            100
        );
        assert_eq!(Fuzzy::new("kitten").partial_ratio("sitting"), 66);
    }

    #[test]
    fn regex_matches_the_raw_text() {
        let (c, d) = listing();
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "^Saved \\d+ files$", "match": "regex"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert_eq!(f.chosen().unwrap().id, "6");
        let f = find(
            &c,
            &d,
            &sel(json!({"text": "^saved", "match": "regex"})),
            &MatchOptions::default(),
        )
        .unwrap();
        assert!(f.matches.is_empty(), "regex is case-sensitive unless (?i)");
    }

    #[test]
    fn bad_selectors_say_every_problem_with_its_path() {
        let s = sel(
            json!({"type": "buton", "match": "regex", "text": "(", "within": {"match": "exact"}}),
        );
        let p = s.problems("steps[2].selector");
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(
            p[0].starts_with("steps[2].selector.type: unknown control type \"buton\""),
            "{p:?}"
        );
        assert!(
            p[1].starts_with("steps[2].selector.text: the regex does not compile"),
            "{p:?}"
        );
        assert_eq!(
            p[2],
            "steps[2].selector.within: a selector needs a text or a type"
        );
        let (c, d) = listing();
        let e = find(&c, &d, &s, &MatchOptions::default()).unwrap_err();
        assert_eq!(e.0.len(), 3);
        assert!(
            serde_json::from_value::<Selector>(json!({"txt": "a"}))
                .unwrap_err()
                .to_string()
                .contains("unknown field")
        );
        assert!(serde_json::from_value::<Selector>(json!({"text": "a", "match": "glob"})).is_err());
    }

    #[test]
    fn display_is_short() {
        let s = sel(
            json!({"text": "Save", "type": "button", "match": "exact", "index": 1, "within": {"text": "Export"}}),
        );
        assert_eq!(
            s.to_string(),
            "button \"Save\" (exact) #1 within \"Export\""
        );
    }
}
