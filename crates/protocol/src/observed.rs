//! Reading back what an observation showed: the controls in a tool's answer, as the model saw
//! them — a compact or JSON listing of `get_app_window_controls_info` (whole, a subtree, or what
//! changed), the matches of `find_controls`, the control `wait_for_control` found. The inverse of
//! the renderers in [`observation`](crate::observation) and [`found`](crate::found), for consumers
//! that hold only a run's step log (designer mode checks a draft's selectors against it).
//!
//! Lenient: a line that is not a control line (the header, `… ` footers, `-ID` gone lines) is
//! passed over; of a control line only what the matcher reads is kept — id, type, name, value and
//! state flags (`rect` too when listed). Listings print no depth, so every control read back is at
//! depth 0.
//!
//! ```
//! use deft_protocol::observed::controls_seen;
//! let listing = "window 2 \"Calculator\" app=\"gnome-calculator\" controls=3 interactive=2 new=0\n\
//!                7 button \"7\"\n*9 edit \"Result\" = \"56\" focused\n… 1 more control\n";
//! let seen = controls_seen("get_app_window_controls_info", &listing.into());
//! assert_eq!(seen.len(), 2);
//! assert_eq!(seen[1].value.as_deref(), Some("56"));
//! ```

use serde_json::Value;

use crate::observation::{Control, ControlType, StateFlag};

/// The listing tool (docs/observation.md "Tools").
pub const LISTING_TOOL: &str = "get_app_window_controls_info";
/// The tool that finds controls by a selector.
pub const FIND_TOOL: &str = "find_controls";
/// The tool that waits for a control.
pub const WAIT_TOOL: &str = "wait_for_control";

/// The controls a successful answer of `tool` showed (its `result` value: text for the compact
/// forms, an object for the JSON ones); empty for other tools and for answers that list none.
pub fn controls_seen(tool: &str, result: &Value) -> Vec<Control> {
    match (tool, result) {
        (LISTING_TOOL | FIND_TOOL, Value::String(text)) => parse_listing(text),
        (LISTING_TOOL, Value::Object(o)) => controls_of(o.get("controls")),
        (FIND_TOOL, Value::Object(o)) => controls_of(o.get("matches")),
        (WAIT_TOOL, Value::Object(o)) => o
            .get("control")
            .and_then(|c| serde_json::from_value::<Control>(c.clone()).ok())
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether an answer of `find_controls` or `wait_for_control` says its selector picked a
/// control (`chosen` set; `appeared`); `None` for other tools and unreadable answers.
pub fn selector_picked(tool: &str, result: &Value) -> Option<bool> {
    match (tool, result) {
        (FIND_TOOL, Value::Object(o)) => Some(o.get("chosen").is_some_and(|c| !c.is_null())),
        (FIND_TOOL, Value::String(text)) => {
            let header = text.lines().next()?;
            let chosen = header.split(' ').find_map(|w| w.strip_prefix("chosen="))?;
            Some(chosen != "none")
        }
        (WAIT_TOOL, Value::Object(o)) => {
            Some(o.get("appeared").and_then(Value::as_bool) == Some(true))
        }
        _ => None,
    }
}

fn controls_of(list: Option<&Value>) -> Vec<Control> {
    list.and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|c| serde_json::from_value::<Control>(c.clone()).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Every control line of a compact listing, change listing or `find_controls` answer, in order.
pub fn parse_listing(text: &str) -> Vec<Control> {
    text.lines().filter_map(parse_control_line).collect()
}

/// One control line (`[*|~]ID TYPE "NAME" [= "VALUE"] {state} {field}`), or `None` for any
/// other line.
pub fn parse_control_line(line: &str) -> Option<Control> {
    let (is_new, line) = match line.as_bytes().first()? {
        b'*' => (true, &line[1..]),
        b'~' => (false, &line[1..]),
        _ => (false, line),
    };
    let (id, rest) = line.split_once(' ')?;
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) || id.starts_with('0') {
        return None;
    }
    let (kind, rest) = rest.split_once(' ')?;
    let kind: ControlType = kind.parse().ok()?;
    let (name, rest) = json_string(rest)?;
    let (value, rest) = match rest.strip_prefix(" = ") {
        Some(after) => {
            let (v, r) = json_string(after)?;
            (Some(v), r)
        }
        None => (None, rest),
    };
    let mut control = Control::new(id, kind, name);
    control.value = value;
    control.is_new = is_new;
    for word in rest.split(' ').filter(|w| !w.is_empty()) {
        if let Some(rect) = word.strip_prefix("rect=") {
            control.rect = serde_json::from_str(rect).ok();
        } else if word.contains('=') {
            // Optional fields (and find's score) follow the states; their values may hold
            // spaces, so nothing after the first one is read as a state.
            break;
        } else if let Ok(flag) = word.parse::<StateFlag>() {
            control.states.insert(flag);
        }
    }
    Some(control)
}

/// A JSON string at the start of `text`, and what follows it.
fn json_string(text: &str) -> Option<(String, &str)> {
    if !text.starts_with('"') {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<String>();
    let s = stream.next()?.ok()?;
    Some((s, &text[stream.byte_offset()..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::{ListingOptions, WindowSummary, WindowType, render_compact};
    use serde_json::json;

    fn sample() -> Vec<Control> {
        vec![
            Control::new("1", ControlType::Group, "Form"),
            Control::new("12", ControlType::Edit, "Name \"full\"")
                .with_value("Grüße\naus 苏州")
                .with_states([StateFlag::Focused]),
            Control::new("13", ControlType::Button, "Save = now")
                .with_states([StateFlag::Disabled])
                .new_since_last()
                .with_rect([1, 2, 30, 40]),
            Control::new("14", ControlType::Text, ""),
        ]
    }

    #[test]
    fn a_rendered_listing_reads_back_as_its_controls() {
        let window = WindowSummary::new("2", "Win", WindowType::Window, "app");
        let opts = ListingOptions {
            field_list: vec!["rect".into()],
            ..ListingOptions::default()
        };
        let text = render_compact(&window, &sample(), &opts);
        let back = parse_listing(&text);
        assert_eq!(back.len(), 4, "{text}");
        for (a, b) in sample().iter().zip(&back) {
            assert_eq!(
                (&a.id, a.kind, &a.name, &a.value, &a.states, a.is_new),
                (&b.id, b.kind, &b.name, &b.value, &b.states, b.is_new),
                "{text}"
            );
        }
        assert_eq!(back[2].rect, Some([1, 2, 30, 40]));
    }

    #[test]
    fn headers_footers_gone_lines_and_scores_are_passed_over() {
        let text = "page 3 \"Shop\" app=\"localhost\" controls=5 interactive=4 new=2 changed=1 gone=1 unchanged=2\n\
                    ~10 edit \"Search\" = \"ap\" focused\n\
                    *45 menuitem \"Apples\" score=100 on=value\n\
                    -30 button \"Close\"\n\
                    … 27 controls gone: 30–56, 61.\n\
                    07 button \"leading zero\"\n\
                    8 blorp \"unknown type\"\n\
                    9 button unquoted\n";
        let seen = parse_listing(text);
        let ids: Vec<&str> = seen.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["10", "45"]);
        assert_eq!(seen[0].states.len(), 1);
        assert!(seen[1].is_new);
    }

    #[test]
    fn json_answers_read_their_controls_and_whether_a_selector_picked() {
        let listing = json!({"window": {}, "controls": [
            {"id": "4", "type": "button", "name": "OK", "value": null, "states": [], "new": false, "interactive": true}
        ]});
        assert_eq!(controls_seen(LISTING_TOOL, &listing)[0].name, "OK");
        let found = json!({"matches": [{"id": "4", "type": "button", "name": "OK", "score": 100}], "chosen": "4"});
        assert_eq!(controls_seen(FIND_TOOL, &found).len(), 1);
        assert_eq!(selector_picked(FIND_TOOL, &found), Some(true));
        let none = json!({"matches": [], "chosen": null});
        assert_eq!(selector_picked(FIND_TOOL, &none), Some(false));
        let text = "window 2 \"W\" app=\"a\" matches=0 chosen=none selector=\"x\"\n… no control matches.\n";
        assert_eq!(selector_picked(FIND_TOOL, &text.into()), Some(false));
        let waited = json!({"appeared": true, "control": {"id": "9", "type": "edit", "name": "", "value": "56"}, "waited_ms": 3});
        assert_eq!(
            controls_seen(WAIT_TOOL, &waited)[0].value.as_deref(),
            Some("56")
        );
        assert_eq!(selector_picked(WAIT_TOOL, &waited), Some(true));
        assert_eq!(
            selector_picked(WAIT_TOOL, &json!({"gone": true})),
            Some(false)
        );
        assert!(controls_seen("run_shell", &"7 button \"x\"".into()).is_empty());
    }
}
