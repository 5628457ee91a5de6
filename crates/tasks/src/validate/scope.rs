//! The variables in scope as the validator walks the document: the task's `variables`, the
//! names the run request provides, and those a `clipboard` step read before a point (in
//! document order); which of them steps use; and a preview of a text with the values known
//! now, so the selector, key and URL checks see what the runner will.

use std::collections::{BTreeMap, BTreeSet};

use crate::vars::references;

/// The variables in scope at each point of the document, and which of them steps use.
pub(super) struct Scope {
    declared: BTreeMap<String, String>,
    /// The secret variables and the secret each names.
    secrets: BTreeMap<String, String>,
    provided: BTreeSet<String>,
    /// Clipboard reads so far: the variable and the step's path.
    reads: Vec<(String, String)>,
    used: BTreeSet<String>,
    /// The round names of the `for_each` steps around the point being checked, outermost
    /// first, with their fields when the items are written in the step.
    rounds: Vec<Round>,
}

/// A `for_each`'s round name in scope.
pub(super) struct Round {
    pub name: String,
    /// The fields its items have (`items` of objects); `None` when only the run knows them (a
    /// CSV file's header, a variable's JSON).
    pub fields: Option<BTreeSet<String>>,
}

impl Scope {
    pub fn new(provided: &[String]) -> Self {
        Scope {
            declared: BTreeMap::new(),
            secrets: BTreeMap::new(),
            provided: provided.iter().cloned().collect(),
            reads: Vec::new(),
            used: BTreeSet::new(),
            rounds: Vec::new(),
        }
    }

    pub fn declare(&mut self, name: &str, value: &str) {
        self.declared.insert(name.to_owned(), value.to_owned());
    }

    /// Declares a secret variable: its value is known only at run time.
    pub fn declare_secret(&mut self, name: &str, secret: &str) {
        self.declared.insert(name.to_owned(), String::new());
        self.secrets.insert(name.to_owned(), secret.to_owned());
    }

    /// The secret a secret variable names.
    pub fn secret_of(&self, name: &str) -> Option<&str> {
        self.secrets.get(name).map(String::as_str)
    }

    /// Whether the run request gives `name` a value.
    pub fn is_provided(&self, name: &str) -> bool {
        self.provided.contains(name)
    }

    /// A point in the document: the reads before it are in scope for what follows.
    pub fn mark(&self) -> usize {
        self.reads.len()
    }

    pub fn read(&mut self, name: &str, path: &str) {
        self.reads.push((name.to_owned(), path.to_owned()));
    }

    /// Enters a `for_each`'s steps: its round name is in scope until [`Scope::leave_round`].
    pub fn enter_round(&mut self, round: Round) {
        self.rounds.push(round);
    }

    /// Leaves the innermost `for_each`'s steps.
    pub fn leave_round(&mut self) {
        self.rounds.pop();
    }

    /// What `name` already is at `mark`, if anything: a round name of an enclosing `for_each`,
    /// a declared or provided variable, or one read before (for a round name that would hide
    /// it).
    pub fn taken(&self, name: &str, mark: usize) -> Option<&'static str> {
        if self.rounds.iter().any(|r| r.name == name) {
            Some("the round name of an enclosing for_each")
        } else if self.declared.contains_key(name) {
            Some("a variable of the task")
        } else if self.provided.contains(name) {
            Some("a variable the run request gives")
        } else if self.reads[..mark].iter().any(|(n, _)| n == name) {
            Some("a variable a clipboard step reads")
        } else {
            None
        }
    }

    /// Whether `name` is declared, provided or read before `mark`, or is a round's item or
    /// field (`row`, `row.Order`) inside its `for_each`.
    pub fn known(&self, name: &str, mark: usize) -> bool {
        if let Some((base, field)) = name.split_once('.') {
            return self
                .rounds
                .iter()
                .rev()
                .find(|r| r.name == base)
                .is_some_and(|r| r.fields.as_ref().is_none_or(|f| f.contains(field)));
        }
        self.rounds.iter().any(|r| r.name == name)
            || self.declared.contains_key(name)
            || self.provided.contains(name)
            || self.reads[..mark].iter().any(|(n, _)| n == name)
    }

    /// The names in scope at `mark`, for a "did you mean".
    pub fn candidates(&self, mark: usize) -> Vec<String> {
        let rounds = self.rounds.iter().flat_map(|r| {
            let fields = r.fields.iter().flatten();
            std::iter::once(r.name.clone()).chain(fields.map(|f| format!("{}.{f}", r.name)))
        });
        self.declared
            .keys()
            .chain(self.provided.iter())
            .chain(self.reads[..mark].iter().map(|(n, _)| n))
            .cloned()
            .chain(rounds)
            .collect()
    }

    /// `text` with each reference replaced by the declared value, or by the variable's name
    /// when its value is empty or known only at run time; and whether every value was known.
    pub fn preview(&self, text: &str) -> (String, bool) {
        let mut out = String::with_capacity(text.len());
        let mut all_known = true;
        let mut last = 0;
        for r in references(text) {
            out.push_str(&text[last..r.range.start]);
            match self.declared.get(r.name).filter(|v| !v.is_empty()) {
                Some(v) => out.push_str(v),
                None => {
                    all_known = false;
                    out.push_str(r.name);
                }
            }
            last = r.range.end;
        }
        out.push_str(&text[last..]);
        (out, all_known)
    }

    /// Notes that a step uses `name`.
    pub fn used(&mut self, name: &str) {
        self.used.insert(name.to_owned());
    }

    /// The declared variables no step uses, by name.
    pub fn unused_declared(&self) -> Vec<String> {
        self.declared
            .keys()
            .filter(|n| !self.used.contains(*n))
            .cloned()
            .collect()
    }

    /// The clipboard reads (variable, step path) no step uses, in document order.
    pub fn unused_reads(&self) -> Vec<(String, String)> {
        self.reads
            .iter()
            .filter(|(n, _)| !self.used.contains(n))
            .cloned()
            .collect()
    }
}
