//! How `find_controls` and `wait_for_control` answer (docs/observation.md "Finding controls"):
//! one renderer for both device backends, so the model, the task runner and the dataflow
//! pipeline read the same matches whatever the device. Control lines are those of a listing
//! with ` score=N` (and ` on=value` when the value matched, ` fit=partial` when a score of 100
//! covers only part of the asked text) at the end.
//!
//! ```
//! use deft_protocol::found::render_found_compact;
//! use deft_protocol::observation::{Control, ControlType, WindowSummary, WindowType};
//! use deft_protocol::selector::{find, MatchOptions, Selector};
//! let controls = [Control::new("4", ControlType::Button, "Save")];
//! let sel = Selector::text("save");
//! let found = find(&controls, &[0], &sel, &MatchOptions::default()).unwrap();
//! let window = WindowSummary::new("2", "Notes", WindowType::Window, "mousepad");
//! assert_eq!(
//!     render_found_compact(&window, &sel, &found, 10),
//!     "window 2 \"Notes\" app=\"mousepad\" matches=1 chosen=4 selector=\"\\\"save\\\"\"\n4 button \"Save\" score=100\n",
//! );
//! ```

use serde_json::{Value, json};

use crate::observation::{
    ELLIPSIS, ListingFormat, WindowSummary, control_json, control_line, quote,
};
use crate::selector::{Fit, Found, Match, MatchedOn, Selector};
use crate::task_run::MatchedControl;

fn chosen_id(found: &Found<'_>) -> Option<String> {
    found.chosen().map(|c| c.id.clone())
}

fn match_line(m: &Match<'_>) -> String {
    let mut line = control_line(m.control, &[]);
    line.push_str(&format!(" score={}", m.score));
    if m.on == MatchedOn::Value {
        line.push_str(" on=value");
    }
    // A score under 100 says by itself that the text differs; a 100 on part of the text would not.
    if m.fit == Fit::Partial && m.score == 100 {
        line.push_str(" fit=partial");
    }
    line
}

/// The compact answer: a header (the window, how many matched, the chosen id or `none`, the
/// selector), one control line per match up to `limit`, best first, then `… ` footers: the
/// tie-break or why nothing was chosen, and how many matches were left out.
pub fn render_found_compact(
    window: &WindowSummary,
    selector: &Selector,
    found: &Found<'_>,
    limit: usize,
) -> String {
    let mut out = format!(
        "{} {} {} app={} matches={} chosen={} selector={}\n",
        window.kind.as_str(),
        window.id,
        quote(&crate::observation::clean_name(&window.name)),
        quote(&window.app),
        found.matches.len(),
        chosen_id(found).as_deref().unwrap_or("none"),
        quote(&selector.to_string()),
    );
    for m in found.matches.iter().take(limit) {
        out.push_str(&match_line(m));
        out.push('\n');
    }
    if let Some(note) = &found.note {
        out.push_str(&format!("{ELLIPSIS} {note}.\n"));
    }
    let left = found.matches.len().saturating_sub(limit);
    if left > 0 {
        out.push_str(&format!(
            "{ELLIPSIS} {left} more match{} not listed (limit={limit}).\n",
            if left == 1 { "" } else { "es" }
        ));
    }
    out
}

/// One match as JSON: the control as the JSON listing shows it, with `score`, `fit` and `on`.
pub fn match_json(m: &Match<'_>) -> Value {
    let mut v = control_json(m.control, &[]);
    if let Value::Object(obj) = &mut v {
        obj.insert("score".into(), json!(m.score));
        obj.insert("fit".into(), json!(m.fit));
        obj.insert("on".into(), json!(m.on));
    }
    v
}

/// The JSON answer: `{window, selector, matches, total, best_count, chosen, note}` — `matches`
/// cut at `limit`, `total` counting them all, `chosen` the picked id or `null`.
pub fn render_found_json(
    window: &WindowSummary,
    selector: &Selector,
    found: &Found<'_>,
    limit: usize,
) -> Value {
    json!({
        "window": window.to_json(),
        "selector": selector,
        "matches": found.matches.iter().take(limit).map(match_json).collect::<Vec<_>>(),
        "total": found.matches.len(),
        "best_count": found.best_count,
        "chosen": chosen_id(found),
        "note": found.note,
    })
}

/// [`render_found_compact`] or [`render_found_json`] (as compact JSON text), as `format` asks.
pub fn render_found(
    window: &WindowSummary,
    selector: &Selector,
    found: &Found<'_>,
    limit: usize,
    format: ListingFormat,
) -> String {
    match format {
        ListingFormat::Compact => render_found_compact(window, selector, found, limit),
        ListingFormat::Json => render_found_json(window, selector, found, limit).to_string(),
    }
}

/// How a tie was broken, when several controls share the best score and one was picked
/// (`2 controls score 100; index 0 in document order picks id 7`); `None` for a clear match.
pub fn tie_note<'f>(found: &'f Found<'_>) -> Option<&'f str> {
    found
        .note
        .as_deref()
        .filter(|_| found.chosen.is_some() && found.best_count > 1)
}

/// `wait_for_control`'s answer once the wait is over:
/// `{"appeared": true, "control": {…, "score"}, "waited_ms"}` when it waited for a control (with
/// `"note"`, the [`tie_note`], when several matched equally), or `{"gone": true, "waited_ms"}`
/// when it waited for none to match. A wait that runs out is a tool error instead
/// ([`wait_timeout_text`]).
pub fn wait_result(found: Option<&Match<'_>>, tie: Option<&str>, waited_ms: u64) -> Value {
    match found {
        Some(m) => {
            let mut v = json!({"appeared": true, "control": match_json(m), "waited_ms": waited_ms});
            if let Some(note) = tie {
                v["note"] = Value::String(note.to_owned());
            }
            v
        }
        None => json!({"gone": true, "waited_ms": waited_ms}),
    }
}

/// The control a `find_controls` JSON answer ([`render_found_json`]) picked, as a step result
/// reports it, with the tie note when several matched equally; `None` when it picked none.
pub fn chosen_control(answer: &Value) -> Option<MatchedControl> {
    let id = answer["chosen"].as_str()?;
    let m = answer["matches"]
        .as_array()?
        .iter()
        .find(|m| m["id"].as_str() == Some(id))?;
    let tied = answer["best_count"].as_u64().is_some_and(|n| n > 1);
    Some(matched_control(m, answer["note"].as_str().filter(|_| tied)))
}

/// The control a `wait_for_control` answer ([`wait_result`]) saw appear, as a step result
/// reports it; `None` when it waited for a control to go.
pub fn waited_control(answer: &Value) -> Option<MatchedControl> {
    let m = &answer["control"];
    m["id"].as_str()?;
    Some(matched_control(m, answer["note"].as_str()))
}

/// One match of an answer ([`match_json`]) as a step result reports it.
fn matched_control(m: &Value, tie: Option<&str>) -> MatchedControl {
    let text = |k: &str| m[k].as_str().unwrap_or_default().to_owned();
    MatchedControl {
        id: text("id"),
        name: text("name"),
        kind: text("type"),
        score: m["score"]
            .as_u64()
            .and_then(|s| u8::try_from(s).ok())
            .unwrap_or(0),
        value: m["value"].as_str().map(str::to_owned),
        tie: tie.map(str::to_owned),
    }
}

/// The error text of a `wait_for_control` that ran out: what it waited for, how long, and —
/// when waiting for a control to go — which one is still there.
pub fn wait_timeout_text(
    selector: &Selector,
    secs: f64,
    still_there: Option<&Match<'_>>,
) -> String {
    match still_there {
        None => format!(
            "No control matched {selector} within {secs} s. Check the selector with find_controls, or wait longer."
        ),
        Some(m) => format!(
            "A control still matches {selector} after {secs} s: {}.",
            match_line(m)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::{Control, ControlType, WindowType};
    use crate::selector::{MatchOptions, find};

    fn window() -> WindowSummary {
        WindowSummary::new("3", "Shop", WindowType::Page, "localhost")
    }

    #[test]
    fn compact_lists_best_first_with_the_tie_break_and_what_was_left_out() {
        let controls = [
            Control::new("7", ControlType::Button, "Add to cart"),
            Control::new("9", ControlType::Button, "Add to cart"),
            Control::new("11", ControlType::Edit, "Note").with_value("add to cart later"),
        ];
        let sel = Selector::text("add to cart");
        let found = find(&controls, &[0, 0, 0], &sel, &MatchOptions::default()).unwrap();
        let text = render_found_compact(&window(), &sel, &found, 2);
        assert_eq!(
            text,
            "page 3 \"Shop\" app=\"localhost\" matches=3 chosen=7 selector=\"\\\"add to cart\\\"\"\n\
             7 button \"Add to cart\" score=100\n\
             9 button \"Add to cart\" score=100\n\
             … 2 controls score 100; index 0 in document order picks id 7.\n\
             … 1 more match not listed (limit=2).\n"
        );
        let v = render_found_json(&window(), &sel, &found, 10);
        assert_eq!(v["chosen"], "7");
        assert_eq!(v["total"], 3);
        assert_eq!(v["matches"][2]["on"], "value");
        assert_eq!(v["matches"][2]["score"], 100);
        assert_eq!(
            (
                v["matches"][0]["fit"].as_str(),
                v["matches"][2]["fit"].as_str()
            ),
            (Some("exact"), Some("contains")),
            "the value holds the text inside a longer one"
        );
        assert_eq!(v["best_count"], 2);
        assert_eq!(v["selector"]["text"], "add to cart");
    }

    #[test]
    fn a_full_score_on_part_of_the_text_says_so() {
        let controls = [
            Control::new("2", ControlType::Menuitem, "View"),
            Control::new("5", ControlType::Edit, "Title").with_value("Quarterly Reveiw"),
        ];
        let sel = Selector::text("Quarterly Review").with_mode(crate::selector::MatchMode::Fuzzy);
        let found = find(&controls, &[0, 0], &sel, &MatchOptions::default()).unwrap();
        let text = render_found_compact(&window(), &sel, &found, 10);
        let lines: Vec<_> = text.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "2 menuitem \"View\" score=100 fit=partial",
                "5 edit \"Title\" = \"Quarterly Reveiw\" score=93 on=value",
            ]
        );
    }

    #[test]
    fn a_tie_is_read_back_with_the_chosen_control_and_a_nameless_one_with_its_value() {
        let controls = [
            Control::new("7", ControlType::Button, "Add to cart"),
            Control::new("9", ControlType::Button, "Add to cart"),
            Control::new("12", ControlType::Edit, "").with_value("56"),
        ];
        let sel = Selector::text("add to cart");
        let found = find(&controls, &[0, 0, 0], &sel, &MatchOptions::default()).unwrap();
        let tie = "2 controls score 100; index 0 in document order picks id 7";
        assert_eq!(tie_note(&found), Some(tie));
        let picked = chosen_control(&render_found_json(&window(), &sel, &found, 5)).unwrap();
        assert_eq!(
            (
                picked.id.as_str(),
                picked.kind.as_str(),
                picked.tie.as_deref()
            ),
            ("7", "button", Some(tie))
        );
        let waited = wait_result(found.chosen_match(), tie_note(&found), 12);
        assert_eq!(waited_control(&waited).unwrap(), picked);

        let display = Selector::text("56");
        let found = find(&controls, &[0, 0, 0], &display, &MatchOptions::default()).unwrap();
        assert_eq!(tie_note(&found), None, "one clear match");
        let answer = render_found_json(&window(), &display, &found, 5);
        let shown = chosen_control(&answer).unwrap();
        assert_eq!(
            (shown.name.as_str(), shown.label(), shown.tie.as_deref()),
            ("", "56", None)
        );
        assert!(waited_control(&wait_result(None, None, 3)).is_none());
    }

    #[test]
    fn nothing_found_says_none_and_why() {
        let controls = [Control::new("7", ControlType::Button, "Save")];
        let sel = Selector::text("Delete");
        let found = find(&controls, &[0], &sel, &MatchOptions::default()).unwrap();
        let text = render_found_compact(&window(), &sel, &found, 10);
        assert!(text.contains("matches=0 chosen=none"), "{text}");
        assert!(text.ends_with("… no control matches.\n"), "{text}");
        assert!(render_found_json(&window(), &sel, &found, 10)["chosen"].is_null());
        assert!(
            wait_timeout_text(&sel, 2.0, None)
                .starts_with("No control matched \"Delete\" within 2 s.")
        );
    }
}
