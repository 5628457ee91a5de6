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
}

impl Scope {
    pub fn new(provided: &[String]) -> Self {
        Scope {
            declared: BTreeMap::new(),
            secrets: BTreeMap::new(),
            provided: provided.iter().cloned().collect(),
            reads: Vec::new(),
            used: BTreeSet::new(),
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

    /// Whether `name` is declared, provided or read before `mark`.
    pub fn known(&self, name: &str, mark: usize) -> bool {
        self.declared.contains_key(name)
            || self.provided.contains(name)
            || self.reads[..mark].iter().any(|(n, _)| n == name)
    }

    /// The names in scope at `mark`, for a "did you mean".
    pub fn candidates(&self, mark: usize) -> Vec<&str> {
        self.declared
            .keys()
            .map(String::as_str)
            .chain(self.provided.iter().map(String::as_str))
            .chain(self.reads[..mark].iter().map(|(n, _)| n.as_str()))
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
