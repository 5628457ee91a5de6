//! What the exploration saw: every control a successful listing, `find_controls` or
//! `wait_for_control` answer showed (read back with `deft_protocol::observed`), and each
//! selector a find or wait picked a control with. A draft's selectors are checked against it
//! with the one matcher (`deft_protocol::selector`): a selector is *seen* when the device itself
//! picked a control with it (an equal selector in a find or wait), or when it picks a control in
//! one of the answers the model read. A listing prints no nesting, so a selector with `within`
//! is seen when it and each of its `within` selectors pick a control in the same answer.
//!
//! A run lists the same window again and again, so the controls of all answers are also kept
//! once each (by type, name and value): a selector without `within` and `index` picks a control
//! in some answer exactly when it picks one among them, and is checked there once.

use std::collections::{BTreeMap, HashSet};

use deft_protocol::observation::{Control, ControlType};
use deft_protocol::observed::{controls_seen, selector_picked};
use deft_protocol::selector::{MatchOptions, Selector, find};
use deft_protocol::{DraftIssue, ToolStep};
use deft_tasks::Task;
use deft_tasks::vars::Vars;
use serde_json::Value;

use crate::texts;

/// The run's observations.
#[derive(Debug, Default)]
pub struct Evidence {
    /// The controls of each answer that showed some, in order.
    answers: Vec<Vec<Control>>,
    /// Every control of every answer once (by type, name and value).
    distinct: Vec<Control>,
    known: HashSet<(ControlType, String, Option<String>)>,
    /// Selectors a find or wait picked a control with.
    picked: Vec<Selector>,
}

impl Evidence {
    /// Takes in one finished tool call.
    pub fn record(&mut self, step: &ToolStep) {
        if step.status() != Some(deft_protocol::ResultStatus::Success) {
            return;
        }
        let result = step.result.get("result").unwrap_or(&Value::Null);
        let controls = controls_seen(&step.tool, result);
        if !controls.is_empty() {
            for c in &controls {
                if self.known.insert((c.kind, c.name.clone(), c.value.clone())) {
                    self.distinct.push(c.clone());
                }
            }
            self.answers.push(controls);
        }
        if selector_picked(&step.tool, result) == Some(true)
            && let Some(sel) = step
                .args
                .get("selector")
                .and_then(|s| serde_json::from_value::<Selector>(s.clone()).ok())
        {
            self.picked.push(sel);
        }
    }

    /// Whether any answer showed a control (the window had something a selector can name).
    pub fn saw_controls(&self) -> bool {
        !self.answers.is_empty()
    }

    /// How many answers showed controls.
    pub fn answers(&self) -> usize {
        self.answers.len()
    }

    /// Whether `selector` picks a control in what the exploration saw.
    pub fn seen(&self, selector: &Selector) -> bool {
        if self.picked.iter().any(|p| p == selector) {
            return true;
        }
        if selector.within.is_none() && selector.index.unwrap_or(0) == 0 {
            // Any match is picked: one search of the distinct controls answers for all.
            return picks(&self.distinct, selector);
        }
        self.answers
            .iter()
            .any(|controls| picks(controls, selector))
    }

    /// Every selector of `task` (variables filled in with their defaults) that no observation
    /// matches, as warnings at their paths (`steps[3].selector`), in document order. A
    /// selector whose variable has no value before the run is reported as unchecked.
    pub fn unseen(&self, task: &Task) -> Vec<DraftIssue> {
        let vars = Vars::for_run(task, &BTreeMap::new(), &BTreeMap::new());
        let mut out = Vec::new();
        for (path, r) in task.walk() {
            let action = match r.step.action.expanded(&vars) {
                Ok(action) => action,
                Err(e) => {
                    for (field, _) in r.step.action.selectors() {
                        out.push(DraftIssue::new(
                            format!("{path}.{field}"),
                            texts::unchecked(&e.to_string()),
                        ));
                    }
                    continue;
                }
            };
            for (field, selector) in action.selectors() {
                if !self.seen(selector) {
                    out.push(DraftIssue::new(
                        format!("{path}.{field}"),
                        texts::unseen(selector, self.answers()),
                    ));
                }
            }
        }
        out
    }
}

/// Whether `selector` and each of its `within`s picks a control among `controls`.
fn picks(controls: &[Control], selector: &Selector) -> bool {
    let flat = Selector {
        within: None,
        ..selector.clone()
    };
    let depths = vec![0; controls.len()];
    let here = find(controls, &depths, &flat, &MatchOptions::default())
        .is_ok_and(|found| found.chosen.is_some());
    here && selector
        .within
        .as_deref()
        .is_none_or(|inner| picks(controls, inner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use deft_protocol::CommandResult;
    use serde_json::json;

    fn step(tool: &str, args: Value, result: Value) -> ToolStep {
        let r = CommandResult::success("c", result, None);
        ToolStep::from_result(
            tool,
            args,
            &r,
            &deft_protocol::NullImages::default(),
            std::time::Duration::ZERO,
        )
    }

    fn task(steps: Value) -> Task {
        deft_tasks::validate_task(
            &json!({"name": "t", "variables": {"who": "Zoë"}, "steps": steps}),
            &Default::default(),
        )
        .value
        .unwrap()
    }

    #[test]
    fn selectors_are_seen_in_listings_finds_and_waits() {
        let mut e = Evidence::default();
        e.record(&step(
            "get_app_window_controls_info",
            json!({}),
            "window 2 \"Calc\" app=\"gnome-calculator\" controls=3 interactive=2 new=0\n\
             4 group \"Keypad\"\n7 button \"7\"\n9 edit \"\" = \"56\"\n"
                .into(),
        ));
        e.record(&step(
            "find_controls",
            json!({"selector": {"text": "Hello, Zoë", "type": "text"}}),
            json!({"matches": [{"id": "30", "type": "text", "name": "Hello, Zoë", "score": 100}], "chosen": "30"}),
        ));
        // A failed call shows nothing.
        let failed = ToolStep::from_result(
            "get_app_window_controls_info",
            json!({}),
            &CommandResult::failure("c", "7 button \"Ghost\"", None),
            &deft_protocol::NullImages::default(),
            std::time::Duration::ZERO,
        );
        e.record(&failed);
        assert!(e.saw_controls());
        let t = task(json!([
            {"type": "click", "selector": {"text": "7", "type": "button", "match": "exact"}},
            {"type": "wait_el", "selector": {"text": "56", "type": "edit", "match": "exact"}},
            {"type": "wait_el", "selector": {"text": "Hello, {{who}}", "type": "text"}},
            {"type": "click", "selector": {"text": "7", "within": {"type": "group", "text": "Keypad"}}},
            {"type": "group", "name": "g", "steps": [
                {"type": "click", "selector": {"text": "Ghost", "type": "button"}},
                {"type": "click", "selector": {"text": "7", "within": {"type": "group", "text": "Display"}}}
            ]},
            {"type": "if_el", "selector": {"text": "8", "type": "button"}, "then": [{"type": "wait", "seconds": 0}]},
            {"type": "click", "selector": {"text": "7", "type": "button", "index": 1}}
        ]));
        let unseen = e.unseen(&t);
        let paths: Vec<&str> = unseen.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "steps[4].steps[0].selector",
                "steps[4].steps[1].selector",
                "steps[5].selector",
                "steps[6].selector"
            ],
            "{unseen:#?}"
        );
        assert!(
            unseen[0]
                .message
                .starts_with("no control seen during the exploration matches button \"Ghost\""),
            "{}",
            unseen[0].message
        );
    }

    #[test]
    fn a_selector_known_only_at_run_time_is_reported_unchecked() {
        let t = deft_tasks::validate_task(
            &json!({"name": "t", "steps": [
                {"type": "clipboard", "read_into": "order"},
                {"type": "click", "selector": {"text": "{{order}}"}}
            ]}),
            &Default::default(),
        )
        .value
        .unwrap();
        let unseen = Evidence::default().unseen(&t);
        assert_eq!(unseen.len(), 1);
        assert_eq!(unseen[0].path, "steps[1].selector");
        assert!(
            unseen[0].message.contains("not checked"),
            "{}",
            unseen[0].message
        );
    }
}
