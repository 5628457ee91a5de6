//! The validator's running state: the options, what it found so far (capped, so a file of
//! thousands of bad steps answers with a readable report), the step count and the variables
//! in scope.

use super::device::DeviceKind;
use super::report::{Issue, Report};
use super::scope::Scope;
use super::{Mode, Options};
use crate::texts;

/// Most errors (and, separately, warnings) a report lists; the rest are counted.
pub const MAX_ISSUES: usize = 200;

pub(super) struct Ctx<'o> {
    pub opts: &'o Options,
    /// The device kind whose abilities the warnings check, once known.
    pub device: Option<DeviceKind>,
    /// Step objects seen so far, nested ones counted.
    pub count: usize,
    pub vars: Scope,
    errors: Vec<Issue>,
    warnings: Vec<Issue>,
    dropped_errors: usize,
    dropped_warnings: usize,
}

impl<'o> Ctx<'o> {
    pub fn new(opts: &'o Options) -> Self {
        Ctx {
            opts,
            device: opts.device,
            count: 0,
            vars: Scope::new(&opts.provided),
            errors: Vec::new(),
            warnings: Vec::new(),
            dropped_errors: 0,
            dropped_warnings: 0,
        }
    }

    pub fn library(&self) -> bool {
        self.opts.mode == Mode::Library
    }

    pub fn error(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.push_error(Issue::new(path, message));
    }

    pub fn push_error(&mut self, issue: Issue) {
        if self.errors.len() < MAX_ISSUES {
            self.errors.push(issue);
        } else {
            self.dropped_errors += 1;
        }
    }

    pub fn warn(&mut self, path: impl Into<String>, message: impl Into<String>) {
        if self.warnings.len() < MAX_ISSUES {
            self.warnings.push(Issue::new(path, message));
        } else {
            self.dropped_warnings += 1;
        }
    }

    /// Errors so far (to tell whether a part added any).
    pub fn error_count(&self) -> usize {
        self.errors.len() + self.dropped_errors
    }

    pub fn finish(mut self) -> Report {
        if self.dropped_errors > 0 {
            self.errors.push(Issue::new(
                "",
                texts::more_issues(self.dropped_errors, "error"),
            ));
        }
        if self.dropped_warnings > 0 {
            self.warnings.push(Issue::new(
                "",
                texts::more_issues(self.dropped_warnings, "warning"),
            ));
        }
        Report {
            errors: self.errors,
            warnings: self.warnings,
        }
    }
}
