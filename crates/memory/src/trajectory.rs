//! What a run did, as distilling reads it (seed 001 §4.1, §5.2): each tool call with its
//! arguments — control ids and coordinates removed (they mean nothing on the next run) — whether
//! it worked, and its result summarised in a line. Bounded: a long run keeps its first calls.

use deft_agent::CallRecord;
use deft_protocol::{ResultStatus, ToolType};
use serde_json::{Map, Value};

/// Calls kept per run.
const MAX_CALLS: usize = 80;
/// Characters of a result summary.
const RESULT_CHARS: usize = 160;
/// Characters of one string argument.
const ARG_CHARS: usize = 200;

/// Argument keys that are positions on the screen or ids of one device session: never shown to
/// the distilling model.
const DROPPED_KEYS: &[&str] = &[
    "id",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "start_x",
    "start_y",
    "end_x",
    "end_y",
    "coordinates",
    "coords",
    "point",
    "points",
    "path",
    "position",
    "rect",
    "bounds",
];

/// Tools whose every argument is a position.
const COORDINATE_TOOLS: &[&str] = &["click_on_coordinates", "drag_on_coordinates"];

/// One call as distilling sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The tool.
    pub tool: String,
    /// Observation or action; `None` for a platform tool.
    pub kind: Option<ToolType>,
    /// The application selected when it ran.
    pub app: Option<String>,
    /// Its arguments without ids and positions.
    pub args: Value,
    /// It succeeded.
    pub ok: bool,
    /// Its result in a line.
    pub result: String,
    /// The application it selected (a `select_application_window` result's root).
    pub selected: Option<String>,
}

impl Call {
    /// A device action that worked (what the action library distils).
    pub fn is_device_action(&self) -> bool {
        self.ok && self.kind == Some(ToolType::Action)
    }

    /// `tool {args} → result` on one line.
    pub fn line(&self) -> String {
        let args = match &self.args {
            Value::Object(m) if m.is_empty() => String::new(),
            v => v.to_string(),
        };
        crate::texts::call_line(
            &self.tool,
            &args,
            self.app.as_deref(),
            self.ok,
            &self.result,
        )
    }
}

/// The calls of one run.
#[derive(Debug, Clone, Default)]
pub struct Trajectory {
    calls: Vec<Call>,
    /// Calls not kept (beyond [`MAX_CALLS`]).
    pub dropped: usize,
}

impl Trajectory {
    /// Records one call.
    pub fn record(&mut self, call: &CallRecord<'_>) {
        if self.calls.len() >= MAX_CALLS {
            self.dropped += 1;
            return;
        }
        let ok = call.result.status == ResultStatus::Success;
        let selected = deft_tools::AppSelection::from_result(call.result).map(|s| s.root);
        let tool = call.step.tool.as_str();
        self.calls.push(Call {
            tool: tool.to_owned(),
            kind: call.tool_type,
            app: call.app.map(str::to_owned),
            args: clean_args(tool, &call.step.args),
            ok,
            result: summary(call.result),
            selected,
        });
    }

    /// Every kept call, in order.
    pub fn calls(&self) -> &[Call] {
        &self.calls
    }

    /// Whether some action worked — a device action, or `run_action` — (nothing to distil
    /// otherwise).
    pub fn acted(&self) -> bool {
        self.calls
            .iter()
            .any(|c| c.is_device_action() || (c.ok && c.tool == crate::RUN_ACTION))
    }

    /// The device actions that worked, at most `max`, and how many more there were.
    pub fn actions(&self, max: usize) -> (Vec<&Call>, usize) {
        let all: Vec<&Call> = self.calls.iter().filter(|c| c.is_device_action()).collect();
        let more = all.len().saturating_sub(max);
        (all.into_iter().take(max).collect(), more)
    }
}

/// `args` without ids and positions, long strings cut.
fn clean_args(tool: &str, args: &Value) -> Value {
    if COORDINATE_TOOLS.contains(&tool) {
        return Value::Object(Map::new());
    }
    let Value::Object(m) = args else {
        return Value::Object(Map::new());
    };
    let kept = m
        .iter()
        .filter(|(k, _)| !DROPPED_KEYS.contains(&k.to_ascii_lowercase().as_str()))
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => Value::String(cut(s, ARG_CHARS)),
                other => other.clone(),
            };
            (k.clone(), v)
        })
        .collect();
    Value::Object(kept)
}

/// A result in a line: a string result's text or compact JSON, a failure's error.
fn summary(r: &deft_protocol::CommandResult) -> String {
    let text = match r.status {
        ResultStatus::Success => match &r.result {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            v => v.to_string(),
        },
        _ => r.error.clone().unwrap_or_default(),
    };
    cut(
        &text.split_whitespace().collect::<Vec<_>>().join(" "),
        RESULT_CHARS,
    )
}

/// The first `n` characters of `s`, with `…` when cut.
pub fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deft_protocol::CommandResult;
    use serde_json::json;

    fn record(
        t: &mut Trajectory,
        tool: &str,
        kind: Option<ToolType>,
        args: Value,
        r: CommandResult,
    ) {
        let step = deft_protocol::ToolStep::from_result(
            tool,
            args,
            &r,
            &deft_protocol::NullImages::default(),
            std::time::Duration::ZERO,
        );
        t.record(&CallRecord {
            step: &step,
            result: &r,
            tool_type: kind,
            app: Some("gnome-calculator"),
        });
    }

    #[test]
    fn ids_and_positions_never_reach_distilling() {
        let mut t = Trajectory::default();
        let ok = CommandResult::success("c", json!("Clicked   the button\n\"7\""), None);
        record(
            &mut t,
            "click_input",
            Some(ToolType::Action),
            json!({"id": "12", "name": "7", "x": 0.5}),
            ok.clone(),
        );
        record(
            &mut t,
            "click_on_coordinates",
            Some(ToolType::Action),
            json!({"x": 0.3, "y": 0.4}),
            ok.clone(),
        );
        let failed = CommandResult::failure("c", "no such control", None);
        record(
            &mut t,
            "click_input",
            Some(ToolType::Action),
            json!({"name": "8"}),
            failed,
        );
        record(
            &mut t,
            "find_controls",
            Some(ToolType::DataCollection),
            json!({}),
            ok,
        );
        let lines: Vec<String> = t.calls().iter().map(Call::line).collect();
        assert_eq!(
            lines[0],
            "click_input {\"name\":\"7\"} [in gnome-calculator] → ok: Clicked the button \"7\""
        );
        assert_eq!(
            lines[1],
            "click_on_coordinates [in gnome-calculator] → ok: Clicked the button \"7\""
        );
        assert_eq!(
            lines[2],
            "click_input {\"name\":\"8\"} [in gnome-calculator] → failed: no such control"
        );
        let (actions, more) = t.actions(1);
        assert_eq!(
            (actions.len(), more),
            (1, 1),
            "two actions worked; the failed one is not one"
        );
        assert!(t.acted());
    }

    #[test]
    fn a_long_run_keeps_its_first_calls() {
        let mut t = Trajectory::default();
        for _ in 0..MAX_CALLS + 5 {
            record(
                &mut t,
                "wait",
                Some(ToolType::Action),
                json!({}),
                CommandResult::success("c", Value::Null, None),
            );
        }
        assert_eq!((t.calls().len(), t.dropped), (MAX_CALLS, 5));
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("计算器", 3), "计算器");
    }
}
