//! The change listing (docs/observation.md "What changed"): instead of the whole window again
//! after an action, only the controls that are new, changed or gone since the window's previous
//! listing, with the unchanged ones counted. A multi-step task spends most of its observation
//! tokens listing the same page again; this is the cheap way to see what an action did.
//!
//! ```text
//! page 3 "Shop" app="localhost" controls=120 interactive=40 new=2 changed=1 gone=1 unchanged=117
//! *45 menuitem "Apples"
//! *46 menuitem "Pears"
//! ~12 edit "Search" = "ap" focused
//! -30 button "Close"
//! ```
//!
//! Pure, like the rest of the renderer: the backend keeps the previous listing's controls and
//! hands both in. Two listings compare by id (an id is one element for as long as it exists); a
//! control *changed* when its type, name, value or states differ (a move alone is no change).

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::observation::{
    Control, ELLIPSIS, ListingOptions, WindowSummary, clean_name, control_json, control_line, plan,
    quote,
};

/// Most gone controls a change listing names, a line each; when more are gone (a re-rendered
/// list, a new page) none is named and one footer gives their ids, as ranges.
pub const MAX_GONE_LINES: usize = 5;

/// What happened to one control between two listings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Not in the previous listing.
    New,
    /// Its type, name, value or states differ.
    Changed,
    /// Only in the previous listing.
    Gone,
}

impl Change {
    /// The line marker: `*`, `~` or `-`.
    pub fn marker(self) -> char {
        match self {
            Change::New => '*',
            Change::Changed => '~',
            Change::Gone => '-',
        }
    }

    fn word(self) -> &'static str {
        match self {
            Change::New => "new",
            Change::Changed => "changed",
            Change::Gone => "gone",
        }
    }
}

/// Two listings of one window compared.
#[derive(Debug, Clone)]
pub struct Diff<'a> {
    /// New and changed controls of the current listing, in document order.
    pub present: Vec<(Change, &'a Control)>,
    /// Controls of the previous listing that are gone, in its document order.
    pub gone: Vec<&'a Control>,
    /// Controls present in both and alike.
    pub unchanged: usize,
}

/// Whether two sightings of one id show the model something different.
fn differs(before: &Control, now: &Control) -> bool {
    before.kind != now.kind
        || clean_name(&before.name) != clean_name(&now.name)
        || before.value != now.value
        || before.states != now.states
}

/// Compares the previous listing of a window with the current one, by id.
pub fn diff<'a>(previous: &'a [Control], now: &'a [Control]) -> Diff<'a> {
    let before: HashMap<&str, &Control> = previous.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut present = Vec::new();
    let mut unchanged = 0;
    for c in now {
        match before.get(c.id.as_str()) {
            None => present.push((Change::New, c)),
            Some(b) if differs(b, c) => present.push((Change::Changed, c)),
            Some(_) => unchanged += 1,
        }
    }
    let ids: std::collections::HashSet<&str> = now.iter().map(|c| c.id.as_str()).collect();
    let gone = previous
        .iter()
        .filter(|c| !ids.contains(c.id.as_str()))
        .collect();
    Diff {
        present,
        gone,
        unchanged,
    }
}

/// Ids as ascending ranges: `30–56, 61, 63`.
fn id_ranges(controls: &[&Control]) -> String {
    let mut ids: Vec<u64> = controls.iter().filter_map(|c| c.id.parse().ok()).collect();
    ids.sort_unstable();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let start = ids[i];
        let mut end = start;
        while i + 1 < ids.len() && ids[i + 1] == end + 1 {
            i += 1;
            end = ids[i];
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        i += 1;
    }
    parts.join(", ")
}

/// The change listing's header: the window and the counts that are not zero (`unchanged=0`
/// when none is): the window's app and totals are in its whole listing, and what did not happen
/// costs nothing.
fn header(window: &WindowSummary, d: &Diff<'_>) -> String {
    let count = |k| d.present.iter().filter(|(c, _)| *c == k).count();
    let mut out = format!(
        "{} {} {}",
        window.kind.as_str(),
        window.id,
        quote(&clean_name(&window.name))
    );
    let counts = [
        ("new", count(Change::New)),
        ("changed", count(Change::Changed)),
        ("gone", d.gone.len()),
        ("unchanged", d.unchanged),
    ];
    let mut any = false;
    for (word, n) in counts.into_iter().filter(|(_, n)| *n > 0) {
        out.push_str(&format!(" {word}={n}"));
        any = true;
    }
    if !any {
        out.push_str(" unchanged=0");
    }
    out
}

/// The compact change listing: the header with the counts that are not zero, a line per new
/// (`*`) or changed (`~`) control (unmarked when all are new) — narrowed by `only_interactive` and `max_controls` with the
/// listing's footers —, then a line per gone interactive control (`-`) when at most
/// [`MAX_GONE_LINES`] are gone, else one footer with the ids of all gone controls as ranges
/// (gone texts and other non-interactive controls are counted, not named: no action can use
/// their ids). A window that kept nothing of its previous listing gets its whole listing instead
/// (every line would be new), its header saying how many controls went: [`whole_listing`].
pub fn render_changes_compact(
    window: &WindowSummary,
    previous: &[Control],
    now: &[Control],
    opts: &ListingOptions,
) -> String {
    let d = diff(previous, now);
    if !previous.is_empty() && d.unchanged == 0 && d.present.iter().all(|(k, _)| *k == Change::New)
    {
        return whole_listing(window, now, opts, Some(previous.len()));
    }
    let changed: Vec<Control> = d.present.iter().map(|(_, c)| (*c).clone()).collect();
    let kinds: HashMap<&str, Change> = d.present.iter().map(|(k, c)| (c.id.as_str(), *k)).collect();
    let p = plan(&changed, opts);
    let mut out = header(window, &d);
    out.push('\n');
    // When nothing changed in place, every line is new and the header says so once.
    let all_new = d.present.iter().all(|(k, _)| *k == Change::New);
    for c in &p.listed {
        let mut line = control_line(c, &p.fields);
        // control_line marks new controls itself; a change listing marks every line.
        if let Some(rest) = line.strip_prefix('*') {
            line = rest.to_owned();
        }
        let kind = kinds.get(c.id.as_str()).copied().unwrap_or(Change::Changed);
        if !all_new {
            out.push(kind.marker());
        }
        out.push_str(&line);
        out.push('\n');
    }
    let gone_interactive: Vec<&&Control> = d.gone.iter().filter(|c| c.interactive).collect();
    let name_gone = gone_interactive.len() <= MAX_GONE_LINES;
    if name_gone {
        for c in gone_interactive {
            out.push(Change::Gone.marker());
            out.push_str(&format!(
                "{} {} {}\n",
                c.id,
                c.kind.as_str(),
                quote(&clean_name(&c.name))
            ));
        }
    }
    for o in &p.omitted {
        out.push_str(&format!("{ELLIPSIS} {}\n", o.note));
    }
    if !name_gone {
        out.push_str(&format!(
            "{ELLIPSIS} {} controls gone: {}.\n",
            d.gone.len(),
            id_ranges(&d.gone)
        ));
    }
    out
}

/// The whole listing of a window in a change view, said in its header and nowhere else (no
/// footer: a change view never costs more than a plain listing plus a word): `gone=N` when the
/// window kept none of the `N` controls of its previous listing (another page, a dialog's
/// contents replaced), then [`WHOLE_WORD`] unless every control is new and `new=` equal to
/// `controls=` says it already. Every line new, none is marked.
fn whole_listing(
    window: &WindowSummary,
    now: &[Control],
    opts: &ListingOptions,
    gone: Option<usize>,
) -> String {
    let whole = crate::observation::render_compact(window, now, opts);
    let mut words = gone.map(|n| format!(" gone={n}")).unwrap_or_default();
    if now.is_empty() || !now.iter().all(|c| c.is_new) {
        words.push(' ');
        words.push_str(WHOLE_WORD);
    }
    match whole.split_once('\n') {
        Some((head, rest)) => format!("{head}{words}\n{rest}"),
        None => whole,
    }
}

/// The JSON change listing: `{window, counts: {controls, interactive, new, changed, gone,
/// unchanged, listed}, controls: [… with "change": "new"|"changed"], gone: [{id, type, name}],
/// omitted}`.
pub fn render_changes_json(
    window: &WindowSummary,
    previous: &[Control],
    now: &[Control],
    opts: &ListingOptions,
) -> Value {
    let d = diff(previous, now);
    let changed: Vec<Control> = d.present.iter().map(|(_, c)| (*c).clone()).collect();
    let p = plan(&changed, opts);
    let kinds: HashMap<&str, Change> = d.present.iter().map(|(k, c)| (c.id.as_str(), *k)).collect();
    let controls: Vec<Value> = p
        .listed
        .iter()
        .map(|c| {
            let mut v = control_json(c, &p.fields);
            if let Value::Object(o) = &mut v {
                let kind = kinds.get(c.id.as_str()).copied().unwrap_or(Change::Changed);
                o.insert("change".into(), json!(kind.word()));
            }
            v
        })
        .collect();
    let count = |k| d.present.iter().filter(|(c, _)| *c == k).count();
    json!({
        "window": window.to_json(),
        "counts": {
            "controls": now.len(),
            "interactive": now.iter().filter(|c| c.interactive).count(),
            "new": count(Change::New),
            "changed": count(Change::Changed),
            "gone": d.gone.len(),
            "unchanged": d.unchanged,
            "listed": controls.len(),
        },
        "controls": controls,
        "gone": d.gone.iter().map(|c| json!({"id": c.id, "type": c.kind.as_str(), "name": clean_name(&c.name)})).collect::<Vec<_>>(),
        "omitted": p.omitted,
    })
}

/// The word that ends the header of a change listing that is the whole listing — a window
/// with no earlier listing to compare with, or one that kept nothing of it. It is left out
/// where the header's counts say it already (`new=` equals `controls=`).
pub const WHOLE_WORD: &str = "whole";

/// What `get_app_window_controls_info` prints: with `changes` and a previous listing of the
/// window, the change listing; with `changes` and none, the whole listing, its header ending in
/// [`WHOLE_WORD`] unless every control is new; otherwise the listing of
/// [`crate::observation::render`]. The JSON form is [`render_listing_json`] as text.
pub fn render_listing(
    window: &WindowSummary,
    previous: Option<&[Control]>,
    now: &[Control],
    opts: &ListingOptions,
) -> String {
    use crate::observation::{ListingFormat, render_compact};
    match (opts.format, opts.changes, previous) {
        (ListingFormat::Json, _, _) => render_listing_json(window, previous, now, opts).to_string(),
        (ListingFormat::Compact, true, Some(prev)) => {
            render_changes_compact(window, prev, now, opts)
        }
        (ListingFormat::Compact, true, None) => whole_listing(window, now, opts, None),
        (ListingFormat::Compact, false, _) => render_compact(window, now, opts),
    }
}

/// The JSON form of [`render_listing`]: the change listing's JSON, or the listing's with
/// `"changes": "no_previous"` when changes were asked for a first listing.
pub fn render_listing_json(
    window: &WindowSummary,
    previous: Option<&[Control]>,
    now: &[Control],
    opts: &ListingOptions,
) -> Value {
    use crate::observation::render_json;
    match (opts.changes, previous) {
        (true, Some(prev)) => render_changes_json(window, prev, now, opts),
        (true, None) => {
            let mut v = render_json(window, now, opts);
            if let Value::Object(o) = &mut v {
                o.insert("changes".into(), json!("no_previous"));
            }
            v
        }
        (false, _) => render_json(window, now, opts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observation::{ControlType, StateFlag, WindowType};

    fn window() -> WindowSummary {
        WindowSummary::new("3", "Shop", WindowType::Page, "localhost")
    }

    fn before() -> Vec<Control> {
        vec![
            Control::new("10", ControlType::Edit, "Search").with_value(""),
            Control::new("11", ControlType::Button, "Go"),
            Control::new("30", ControlType::Button, "Close"),
            Control::new("31", ControlType::Text, "Welcome"),
        ]
    }

    fn after() -> Vec<Control> {
        vec![
            Control::new("10", ControlType::Edit, "Search")
                .with_value("ap")
                .with_states([StateFlag::Focused]),
            Control::new("11", ControlType::Button, "Go").with_rect([1, 2, 3, 4]),
            Control::new("45", ControlType::Menuitem, "Apples").new_since_last(),
            Control::new("46", ControlType::Menuitem, "Pears").new_since_last(),
            Control::new("31", ControlType::Text, "Welcome"),
        ]
    }

    #[test]
    fn lists_new_changed_and_gone_and_counts_the_rest() {
        let text =
            render_changes_compact(&window(), &before(), &after(), &ListingOptions::default());
        assert_eq!(
            text,
            "page 3 \"Shop\" new=2 changed=1 gone=1 unchanged=2\n\
             ~10 edit \"Search\" = \"ap\" focused\n\
             *45 menuitem \"Apples\"\n\
             *46 menuitem \"Pears\"\n\
             -30 button \"Close\"\n"
        );
    }

    #[test]
    fn nothing_changed_is_one_line() {
        let text =
            render_changes_compact(&window(), &before(), &before(), &ListingOptions::default());
        assert_eq!(text, "page 3 \"Shop\" unchanged=4\n");
    }

    #[test]
    fn budgets_apply_to_the_changed_lines_and_many_gone_come_as_ranges() {
        let previous: Vec<Control> = (1..=30)
            .map(|i| Control::new(i.to_string(), ControlType::Button, format!("Old {i}")))
            .collect();
        let mut now = vec![previous[0].clone()];
        now.extend((100..105).map(|i| {
            Control::new(i.to_string(), ControlType::Link, format!("New {i}")).new_since_last()
        }));
        let opts: ListingOptions = serde_json::from_value(json!({"max_controls": 2})).unwrap();
        let text = render_changes_compact(&window(), &previous, &now, &opts);
        assert!(
            text.starts_with("page 3 \"Shop\" new=5 gone=29 unchanged=1\n"),
            "{text}"
        );
        // Nothing changed in place: the lines are all new, and none is marked.
        assert_eq!(
            text.lines().filter(|l| l.starts_with("10")).count(),
            2,
            "{text}"
        );
        assert!(!text.contains('*'), "{text}");
        assert_eq!(
            text.lines().filter(|l| l.starts_with('-')).count(),
            0,
            "too many gone to name: {text}"
        );
        assert!(
            text.contains("… 3 more controls (3 interactive) not listed: max_controls=2"),
            "{text}"
        );
        assert!(text.ends_with("… 29 controls gone: 2–30.\n"), "{text}");
    }

    #[test]
    fn a_few_gone_controls_are_named_and_ids_come_as_ranges() {
        let previous: Vec<Control> = ["1", "2", "3", "7", "9", "10", "11"]
            .iter()
            .map(|i| Control::new(*i, ControlType::Button, format!("B{i}")))
            .collect();
        let few = render_changes_compact(
            &window(),
            &previous[..5],
            &previous[..1],
            &ListingOptions::default(),
        );
        assert_eq!(
            few.lines().filter(|l| l.starts_with('-')).count(),
            4,
            "{few}"
        );
        assert!(few.contains("-9 button \"B9\"\n"), "{few}");
        let many = render_changes_compact(
            &window(),
            &previous,
            &previous[..1],
            &ListingOptions::default(),
        );
        assert!(
            many.ends_with("… 6 controls gone: 2–3, 7, 9–11.\n"),
            "{many}"
        );
    }

    #[test]
    fn gone_texts_are_counted_not_named() {
        let previous = vec![
            Control::new("1", ControlType::Button, "Save"),
            Control::new("2", ControlType::Text, "Nothing saved yet."),
        ];
        let now = vec![
            Control::new("1", ControlType::Button, "Save"),
            Control::new("3", ControlType::Text, "Saved.").new_since_last(),
        ];
        let text = render_changes_compact(&window(), &previous, &now, &ListingOptions::default());
        assert_eq!(
            text,
            "page 3 \"Shop\" new=1 gone=1 unchanged=1\n3 text \"Saved.\"\n"
        );
    }

    #[test]
    fn a_window_that_kept_nothing_is_listed_whole_and_its_header_says_what_went() {
        let now: Vec<Control> = after()
            .into_iter()
            .enumerate()
            .map(|(i, c)| Control::new((200 + i).to_string(), c.kind, c.name).new_since_last())
            .collect();
        let text = render_changes_compact(&window(), &before(), &now, &ListingOptions::default());
        let plain = crate::observation::render_compact(&window(), &now, &ListingOptions::default());
        assert_eq!(
            text,
            plain.replacen(" new=5\n", " new=5 gone=4\n", 1),
            "the whole listing, no line marked, and the gone count in its header: no footer"
        );
        assert!(
            text.starts_with(
                "page 3 \"Shop\" app=\"localhost\" controls=5 interactive=4 new=5 gone=4\n200 edit"
            ),
            "{text}"
        );
        assert!(!text.contains('*') && !text.contains('…'), "{text}");
        // Nothing left at all: the counts alone do not say it is the whole listing.
        let empty = render_changes_compact(&window(), &before(), &[], &ListingOptions::default());
        assert_eq!(
            empty,
            "page 3 \"Shop\" app=\"localhost\" controls=0 interactive=0 new=0 gone=4 whole\n"
        );
    }

    #[test]
    fn a_first_listing_asked_for_changes_is_the_whole_listing_and_says_so() {
        let opts: ListingOptions = serde_json::from_value(json!({"changes": true})).unwrap();
        let text = render_listing(&window(), None, &before(), &opts);
        let plain = render_listing(&window(), None, &before(), &ListingOptions::default());
        assert_eq!(
            text,
            plain.replacen(" new=0\n", " new=0 whole\n", 1),
            "the whole listing, said once in its header and nowhere else"
        );
        // Every control new: `new=` equal to `controls=` says it already.
        let fresh: Vec<Control> = before().into_iter().map(Control::new_since_last).collect();
        let text = render_listing(&window(), None, &fresh, &opts);
        assert!(
            text.starts_with("page 3 \"Shop\" app=\"localhost\" controls=4 interactive=3 new=4\n"),
            "{text}"
        );
        assert!(!text.contains("…"), "no footer: {text}");
        let text = render_listing(&window(), Some(&before()), &after(), &opts);
        assert!(text.contains(" unchanged=2\n"), "{text}");
        let plain = render_listing(
            &window(),
            Some(&before()),
            &after(),
            &ListingOptions::default(),
        );
        assert!(plain.contains("*45 menuitem"), "{plain}");
    }

    #[test]
    fn json_marks_each_control_with_its_change() {
        let v = render_changes_json(&window(), &before(), &after(), &ListingOptions::default());
        assert_eq!(v["counts"]["changed"], 1);
        assert_eq!(v["counts"]["unchanged"], 2);
        assert_eq!(v["controls"][0]["change"], "changed");
        assert_eq!(v["controls"][1]["change"], "new");
        assert_eq!(v["gone"][0]["id"], "30");
    }
}
