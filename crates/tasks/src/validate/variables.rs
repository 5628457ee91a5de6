//! Which variables a step may use: the task's `variables`, the names the run request
//! provides, and those a `clipboard` step read before it (in document order); which of them
//! are used, for the "never used" warning; and a preview of a text with the values known now,
//! so the selector, key and URL checks see what the runner will.

use std::collections::{BTreeMap, BTreeSet};

use super::ctx::Ctx;
use super::suggest::closest;
use crate::texts;
use crate::vars::references;

pub(super) struct Scope {
    declared: BTreeMap<String, String>,
    provided: BTreeSet<String>,
    /// Clipboard reads so far: the variable and the step's path.
    reads: Vec<(String, String)>,
    used: BTreeSet<String>,
}

impl Scope {
    pub fn new(provided: &[String]) -> Self {
        Scope {
            declared: BTreeMap::new(),
            provided: provided.iter().cloned().collect(),
            reads: Vec::new(),
            used: BTreeSet::new(),
        }
    }

    pub fn declare(&mut self, name: &str, value: &str) {
        self.declared.insert(name.to_owned(), value.to_owned());
    }

    /// A point in the document: the reads before it are in scope for what follows.
    pub fn mark(&self) -> usize {
        self.reads.len()
    }

    pub fn read(&mut self, name: &str, path: &str) {
        self.reads.push((name.to_owned(), path.to_owned()));
    }

    fn known(&self, name: &str, mark: usize) -> bool {
        self.declared.contains_key(name)
            || self.provided.contains(name)
            || self.reads[..mark].iter().any(|(n, _)| n == name)
    }

    fn candidates(&self, mark: usize) -> Vec<&str> {
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
}

/// Checks the variables a step's parameters use (`refs`: parameter path, name), given the
/// reads before the step (`mark`).
pub(super) fn check_uses(ctx: &mut Ctx<'_>, path: &str, refs: &[(String, String)], mark: usize) {
    for (field, name) in refs {
        ctx.vars.used.insert(name.clone());
        if !ctx.vars.known(name, mark) {
            let candidates = ctx.vars.candidates(mark);
            let hint = closest(name, candidates.iter().copied()).map(str::to_owned);
            ctx.error(
                format!("{path}.{field}"),
                texts::unknown_variable(name, hint.as_deref()),
            );
        }
    }
}

/// Warnings for variables declared or read and never used.
pub(super) fn warn_unused(ctx: &mut Ctx<'_>) {
    let unused: Vec<String> = ctx
        .vars
        .declared
        .keys()
        .filter(|n| !ctx.vars.used.contains(*n))
        .cloned()
        .collect();
    for name in unused {
        ctx.warn(format!("variables.{name}"), texts::variable_unused(&name));
    }
    let reads: Vec<(String, String)> = ctx
        .vars
        .reads
        .iter()
        .filter(|(n, _)| !ctx.vars.used.contains(n))
        .cloned()
        .collect();
    for (name, path) in reads {
        ctx.warn(format!("{path}.read_into"), texts::read_unused(&name));
    }
}
