//! Walking a task's steps: the sub-step lists of a step, every step in document order with
//! its path (`steps[2].then[0]`, the same paths the validator's errors use, and a run's
//! per-step results can use), and the count the limits apply to.

use super::{Action, Step, Task};

/// A step with where it sits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepRef<'a> {
    /// The step.
    pub step: &'a Step,
    /// How many `group` / `loop` / `if_el` / `for_each` steps hold it (0 for a top-level step).
    pub depth: usize,
}

impl Step {
    /// The step's sub-step lists with their field names, in document order: `steps` of a
    /// `loop`, `group` or `for_each`, `then` and `else` of an `if_el`; empty for the other
    /// types.
    pub fn children(&self) -> Vec<(&'static str, &[Step])> {
        match &self.action {
            Action::Loop(l) => vec![("steps", &l.steps)],
            Action::ForEach(f) => vec![("steps", &f.steps)],
            Action::Group(g) => vec![("steps", &g.steps)],
            Action::IfEl(i) => vec![("then", &i.then), ("else", &i.otherwise)],
            _ => Vec::new(),
        }
    }
}

/// The path of item `index` of the list `field` under `parent` (`""` for a task's top level):
/// `steps[3]`, `steps[3].then[0]`.
pub fn child_path(parent: &str, field: &str, index: usize) -> String {
    if parent.is_empty() {
        format!("{field}[{index}]")
    } else {
        format!("{parent}.{field}[{index}]")
    }
}

/// Every step of `steps` (the list `field` under `parent`) and below, in document order, with
/// its path.
pub fn walk<'a>(parent: &str, field: &str, steps: &'a [Step]) -> Vec<(String, StepRef<'a>)> {
    let mut out = Vec::new();
    walk_into(parent, field, steps, 0, &mut out);
    out
}

fn walk_into<'a>(
    parent: &str,
    field: &str,
    steps: &'a [Step],
    depth: usize,
    out: &mut Vec<(String, StepRef<'a>)>,
) {
    for (i, step) in steps.iter().enumerate() {
        let path = child_path(parent, field, i);
        out.push((path.clone(), StepRef { step, depth }));
        for (name, list) in step.children() {
            walk_into(&path, name, list, depth + 1, out);
        }
    }
}

impl Task {
    /// Every step, nested ones included, in document order with its path (`steps[0]`,
    /// `steps[0].steps[1]`, …).
    pub fn walk(&self) -> Vec<(String, StepRef<'_>)> {
        walk("", "steps", &self.steps)
    }

    /// How many steps the task has, nested ones included.
    pub fn step_count(&self) -> usize {
        self.walk().len()
    }

    /// The step at `path` (as [`Task::walk`] and the validator write it).
    pub fn step_at(&self, path: &str) -> Option<&Step> {
        self.walk()
            .into_iter()
            .find(|(p, _)| p == path)
            .map(|(_, r)| r.step)
    }
}

impl Action {
    /// The selectors of this step's own parameters (not of its sub-steps), with their field
    /// names: `selector`, `area`, `while`, `until`.
    pub fn selectors(&self) -> Vec<(&'static str, &deft_protocol::selector::Selector)> {
        use super::Repeat;
        let mut out = Vec::new();
        match self {
            Action::KeyEvent(k) => out.extend(k.selector.as_ref().map(|s| ("selector", s))),
            Action::Swipe(s) => out.extend(s.area.as_ref().map(|a| ("area", a))),
            Action::SwipeUntil(s) => {
                out.push(("selector", &s.selector));
                out.extend(s.area.as_ref().map(|a| ("area", a)));
            }
            Action::Click(c) => out.push(("selector", &c.selector)),
            Action::LongClick(c) => out.push(("selector", &c.selector)),
            Action::WaitEl(w) => out.push(("selector", &w.selector)),
            Action::InputText(t) => out.push(("selector", &t.selector)),
            Action::IfEl(i) => out.push(("selector", &i.selector)),
            Action::Loop(l) => match &l.repeat {
                Repeat::While { selector, .. } => out.push(("while", selector)),
                Repeat::Until { selector, .. } => out.push(("until", selector)),
                Repeat::Times { .. } => {}
            },
            _ => {}
        }
        out
    }
}
