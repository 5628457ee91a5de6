//! Every text the step language's validator and variable expansion write for people (and for
//! the AI in designer mode, which reads them to fix its draft). They say what is wrong, where
//! (the path is added by the caller), and what to write instead; tests check them.

use serde_json::Value;

/// How a JSON value is described in "must be …, not …".
pub fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let shown: String = s.chars().take(60).collect();
            let more = if shown.len() < s.len() { "…" } else { "" };
            format!("the string {:?}{more}", shown)
        }
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

/// How a string's length is described in "must be …, not …".
pub fn describe_len(s: &str) -> String {
    if s.trim().is_empty() {
        if s.is_empty() {
            "an empty text".to_owned()
        } else {
            "a blank text".to_owned()
        }
    } else {
        format!("a text of {} characters", s.chars().count())
    }
}

/// A field whose value is wrong (type or range).
pub fn wrong_value(owner: &str, field: &str, what: &str, got: &str) -> String {
    format!("{owner}'s {field} must be {what}, not {got}")
}

fn noun(field: &str) -> String {
    match field {
        "selector" | "name" | "direction" | "url" | "message" | "text" => format!("a {field}"),
        "app" => "an app".to_owned(),
        _ => field.to_owned(),
    }
}

/// A required field left out: `click needs a selector: …`.
pub fn missing(owner: &str, field: &str, what: &str) -> String {
    format!("{owner} needs {}: {what}", noun(field))
}

fn quoted_list<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    words
        .into_iter()
        .map(|w| format!("\"{w}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn plain_list<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    words.into_iter().collect::<Vec<_>>().join(", ")
}

/// A field the object does not take, with the closest one and the whole list.
pub fn unknown_field(
    owner: &str,
    key: &str,
    suggestion: Option<&str>,
    own: &[&str],
    also: &[&str],
) -> String {
    let mut out = format!("{owner} has no field {key:?}");
    match suggestion {
        Some(s) => out.push_str(&format!("; did you mean {s:?}? ")),
        None => out.push_str("; "),
    }
    if own.is_empty() {
        out.push_str(&format!("{owner} takes no parameters"));
    } else {
        out.push_str(&format!(
            "{owner} takes {}",
            plain_list(own.iter().copied())
        ));
    }
    if !also.is_empty() {
        out.push_str(&format!(
            ", and every step takes {}",
            plain_list(also.iter().copied())
        ));
    }
    out
}

/// A selector's field written at the step's level.
pub fn selector_field_outside(owner: &str, key: &str) -> String {
    format!(
        "{owner} has no field {key:?}: it is a selector field and goes inside \"selector\", e.g. \"selector\": {{\"text\": \"OK\", \"type\": \"button\"}}"
    )
}

/// A coordinate in the action library.
pub fn coordinates_in_library(owner: &str, key: &str) -> String {
    format!(
        "{owner} has no field {key:?}, and the action library admits no coordinates (they break on another screen or window size): locate the control with a selector"
    )
}

/// What a number field expects.
pub fn number_what(min: f64, max: f64, exclusive_min: bool, unit: &str) -> String {
    let kind = if unit.is_empty() {
        "a number".to_owned()
    } else if unit == "seconds" {
        "a number of seconds".to_owned()
    } else {
        unit.to_owned()
    };
    if exclusive_min {
        format!("{kind} above {min} and at most {max}")
    } else {
        format!("{kind} from {min} to {max}")
    }
}

/// What a whole-number field expects.
pub fn count_what(min: u64, max: u64) -> String {
    format!("a whole number from {min} to {max}")
}

/// What a string field expects.
pub fn text_what(min: usize, max: usize) -> String {
    if min > 0 {
        format!("a non-blank text of at most {max} characters")
    } else {
        format!("a text of at most {max} characters")
    }
}

/// What a choice field expects.
pub fn one_of<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    format!("one of {}", quoted_list(words))
}

/// What a selector field expects.
pub const SELECTOR_WHAT: &str = "an object such as {\"text\": \"OK\", \"type\": \"button\"} (fields text, type, match, index, within)";

/// A selector written as a bare string.
pub fn selector_as_string(owner: &str, field: &str, s: &str) -> String {
    format!("{owner}'s {field} must be {SELECTOR_WHAT}, not a string; write {{\"text\": {s:?}}}")
}

/// What a step list expects.
pub const STEPS_WHAT: &str =
    "a list of steps such as [{\"type\": \"click\", \"selector\": {\"text\": \"OK\"}}]";

/// The top of a task file that is not an object.
pub fn task_not_object(got: &str) -> String {
    format!("a task is a JSON object such as {{\"name\": \"…\", \"steps\": [ … ]}}, not {got}")
}

/// The top of a step list that is not a list.
pub fn steps_not_list(got: &str) -> String {
    format!("the steps must be {STEPS_WHAT}, not {got}")
}

/// A step that is not an object.
pub fn step_not_object(got: &str) -> String {
    format!(
        "a step is an object such as {{\"type\": \"click\", \"selector\": {{\"text\": \"OK\"}}}}, not {got}"
    )
}

/// A step without a `type` (`types`: the step types allowed here).
pub fn step_needs_type(types: &[&str]) -> String {
    format!(
        "a step needs a type: one of {}",
        plain_list(types.iter().copied())
    )
}

/// A `type` that is not a string.
pub fn step_type_not_string(got: &str) -> String {
    format!("a step's type must be a string such as \"click\", not {got}")
}

/// A `type` that names no step type (`types`: the step types allowed here).
pub fn unknown_step_type(got: &str, suggestion: Option<&str>, types: &[&str]) -> String {
    let mut out = format!("unknown step type {got:?}");
    match suggestion {
        Some(s) => out.push_str(&format!("; did you mean {s:?}? The types: ")),
        None => out.push_str("; the types: "),
    }
    out.push_str(&plain_list(types.iter().copied()));
    out
}

/// A task-only type in the action library (`by_coordinates`: a step that acts on a point;
/// `library_types`: the types the library admits).
pub fn library_refused(kind: &str, by_coordinates: bool, library_types: &[&str]) -> String {
    let why = if by_coordinates {
        "coordinates break on another screen or window size; use click or swipe with a selector"
    } else {
        "it admits only the 16 action types, no flow markers"
    };
    format!(
        "{kind} is not allowed in the action library: {why} (library types: {})",
        plain_list(library_types.iter().copied())
    )
}

/// Step lists nested past the limit.
pub fn too_deep(max: usize) -> String {
    format!(
        "steps nest more than {max} deep (group, loop, if_el and for_each inside each other): flatten the inner steps, or move them into another task"
    )
}

/// A task past the step limit.
pub fn too_many_steps(count: usize, max: usize) -> String {
    format!(
        "the task has {count} steps, nested ones counted; at most {max}: split it into several tasks"
    )
}

/// A file past the size cap, refused unread.
pub fn too_large(bytes: usize, max: usize) -> String {
    format!(
        "the task is {bytes} bytes; at most {max} ({} KiB) are read",
        max / 1024
    )
}

/// Malformed JSON.
pub fn malformed(line: usize, column: usize, what: &str) -> String {
    format!("the file is not valid JSON: line {line}, column {column}: {what}")
}

/// `open_app` with neither `app` nor `url`.
pub const OPEN_APP_NEEDS_ONE: &str = "open_app needs an app (a desktop entry name such as \"mousepad\" or \"org.gnome.Calculator\") or a url (\"https://…\")";

/// `open_app` with both.
pub const OPEN_APP_BOTH: &str =
    "open_app takes an app or a url, not both: use two steps to do both";

/// `open_app` with `title` and `new_instance: true` or `args`.
pub const OPEN_APP_TITLE_CONFLICT: &str = "open_app's title picks a window of the app that is already open, while new_instance: true and args start the app: give title alone, or leave it out";

/// A field that only goes with another (`new_tab` with `url`).
pub fn goes_with(owner: &str, field: &str, other: &str) -> String {
    format!("{owner}'s {field} goes with {other}; leave it out or use {other}")
}

/// `clipboard` with neither `set` nor `read_into`.
pub const CLIPBOARD_NEEDS_ONE: &str = "clipboard needs set (the text to put on the clipboard) or read_into (the variable to read it into, e.g. \"read_into\": \"order_id\")";

/// `clipboard` with both.
pub const CLIPBOARD_BOTH: &str = "clipboard takes set or read_into, not both: use two steps";

/// `loop` without a bound.
pub const LOOP_NEEDS_ONE: &str = "loop needs times (a whole number from 1 to 1000), while or until (a selector, with max rounds, default 100)";

/// `loop` with more than one bound.
pub const LOOP_MORE_THAN_ONE: &str = "loop takes one of times, while and until";

/// `max` beside `times`.
pub const LOOP_MAX_WITH_TIMES: &str =
    "loop's max goes with while or until; with times the count is already fixed";

/// `for_each` without a source.
pub const FOR_EACH_NEEDS_ONE: &str = "for_each needs one source of items: items (a list such as [\"a\", \"b\"] or [{\"name\": \"a\"}]), variable (a variable holding a JSON array or one item per line) or csv (the absolute path of a CSV file whose first row is the header)";

/// `for_each` with more than one source.
pub const FOR_EACH_MORE_THAN_ONE: &str =
    "for_each takes one of items, variable and csv: use one for_each per source";

/// What `for_each`'s `items` expects.
pub const ITEMS_WHAT: &str = "a list of texts or of objects with text, number or true/false values, such as [\"Zoë\", \"Omar\"] or [{\"name\": \"Zoë\", \"qty\": 2}]";

/// An item of `for_each`'s `items` that is neither a text nor a flat object.
pub fn bad_item(got: &str) -> String {
    format!(
        "an item must be a text (\"Zoë\") or an object of texts, numbers or true/false ({{\"name\": \"Zoë\", \"qty\": 2}}), not {got}"
    )
}

/// A field of an item whose name cannot be read as `{{item.field}}`.
pub fn bad_item_field(field: &str) -> String {
    format!(
        "{field:?} cannot be read as {{{{item.{field}}}}}: a field's name is letters, digits, _, - and inner spaces"
    )
}

/// A `for_each` list past the round limit.
pub fn too_many_items(count: usize, max: usize) -> String {
    format!(
        "items has {count} items; for_each runs at most {max} rounds: split the list over several steps or tasks"
    )
}

/// A `csv` path that is not absolute.
pub fn csv_not_absolute(path: &str) -> String {
    format!(
        "csv must be an absolute path such as \"/home/me/Documents/orders.csv\", not {path:?}: a run has no current folder"
    )
}

/// A `for_each` round name that is already a variable here.
pub fn round_name_taken(name: &str, what: &str) -> String {
    format!(
        "for_each's as {name:?} is already {what}: give the round another name (\"as\": \"row\")"
    )
}

/// `retry` on a step type that does not take it.
pub fn retry_not_taken(kind: &str, retrying: &[&str]) -> String {
    let why = match kind {
        "wait" => "a pause cannot fail",
        "notify" | "stop_self" | "mark_done" => "it does not act on the device",
        _ => "its sub-steps take their own retry",
    };
    format!(
        "{kind} takes no retry: {why}; retry is for the steps that act or wait ({})",
        plain_list(retrying.iter().copied())
    )
}

/// What `retry` expects.
pub const RETRY_WHAT: &str = "an object such as {\"times\": 3, \"delay_s\": 2, \"backoff\": 2} (times 1–10, delay_s 0–600 seconds, backoff 1–10)";

/// A bad variable name.
pub fn bad_variable_name(name: &str) -> String {
    format!(
        "{name:?} is not a variable name: use letters, digits and _, not starting with a digit (at most 64 characters), e.g. \"order_id\""
    )
}

/// Too many variables.
pub fn too_many_variables(count: usize, max: usize) -> String {
    format!("the task declares {count} variables; at most {max}")
}

/// What the variables object expects.
pub const VARIABLES_WHAT: &str = "an object of names and text values such as {\"city\": \"Suzhou\"} (a secret: {\"password\": {\"secret\": \"LOGIN_PW\"}})";

/// A variable's value is an object that is not `{"secret": "NAME"}`.
pub fn bad_secret_variable(variable: &str, shown: &str) -> String {
    format!(
        "the variable {variable} is {shown}; a variable's value is a text, or {{\"secret\": \"NAME\"}} for a secret kept by deft serve (deft secret set NAME)"
    )
}

/// A secret variable in the action library.
pub fn secret_in_library(variable: &str) -> String {
    format!(
        "the variable {variable} is a secret; an action of the library cannot use secrets (they belong to one server's tasks): give it a text default, or use the secret in a task"
    )
}

/// A secret's name breaks the rule.
pub fn bad_secret_name(name: &str) -> String {
    format!(
        "{name:?} is not a secret's name: use a letter, then letters, digits and _ (at most 64 characters), e.g. \"LOGIN_PW\""
    )
}

/// The run request gives a secret variable a value.
pub fn secret_variable_provided(variable: &str, secret: &str) -> String {
    format!(
        "the variable {variable} is the secret {secret}, so a run cannot give it a value; leave it out of the run's variables, or replace the secret (deft secret set {secret})"
    )
}

/// A secret variable in a parameter that would show it.
pub fn secret_used_in(variable: &str, secret: &str, field: &str) -> String {
    format!(
        "{{{{{variable}}}}} is the secret {secret}; a secret can only be typed (input_text's text, key_event's keys), never used in {field}, where it would be shown or matched against the screen"
    )
}

/// A `{{name}}` nobody sets.
pub fn unknown_variable(name: &str, suggestion: Option<&str>) -> String {
    if let Some((base, _)) = name.split_once('.') {
        let hint = match suggestion {
            Some(s) => format!("did you mean {{{{{s}}}}}? A"),
            None => "a".to_owned(),
        };
        return format!(
            "unknown field {{{{{name}}}}}; {hint} field is read inside a for_each whose as is {base:?} (\"as\": \"{base}\"), from an item's field or a CSV column's header"
        );
    }
    let mut out = format!("unknown variable {{{{{name}}}}}");
    match suggestion {
        Some(s) => out.push_str(&format!("; did you mean {{{{{s}}}}}? Or ")),
        None => out.push_str("; "),
    }
    out.push_str(&format!(
        "declare it in the task's variables (\"variables\": {{\"{name}\": \"default value\"}}) or read it with a clipboard step before this one"
    ));
    out
}

/// Variables without values at run time.
pub fn variables_missing(missing: &[(String, String)]) -> String {
    let list: Vec<String> = missing
        .iter()
        .map(|(field, name)| {
            if field.is_empty() {
                format!("{{{{{name}}}}}")
            } else {
                format!("{{{{{name}}}}} (in {field})")
            }
        })
        .collect();
    format!(
        "no value for {}: give it in the task's variables or the run request, or read it with a clipboard step that runs before this one",
        list.join(", ")
    )
}

/// A URL without a scheme.
pub fn url_without_scheme(url: &str) -> String {
    format!("open_app's url needs a scheme: write \"https://{url}\" (or file://, about:, data:)")
}

// ---- warnings ----

/// A declared variable no step uses.
pub fn variable_unused(name: &str) -> String {
    format!("the variable {name} is never used (no step has {{{{{name}}}}})")
}

/// A clipboard read no later step uses.
pub fn read_unused(name: &str) -> String {
    format!("the clipboard is read into {name}, but no later step uses {{{{{name}}}}}")
}

/// A task without steps.
pub const NO_STEPS: &str = "there are no steps: a run does nothing";

/// `click_xy` without a note saying why coordinates.
pub const CLICK_XY_WITHOUT_NOTE: &str = "click_xy clicks wherever the point falls once the window is another size or the layout moves; use click with a selector, or say in the step's note why a point is needed";

/// A container (`loop`, `group`, `if_el`) whose steps are empty.
pub fn empty_branch(owner: &str, field: &str) -> String {
    match owner {
        "if_el" => format!(
            "if_el's {field} has no steps; to act only when the control is absent, set \"gone\": true and put the steps in then"
        ),
        _ => format!("{owner} has no steps: it does nothing"),
    }
}

/// Key text that spells a modifier in words (`ctrl+s`).
pub fn modifier_words(keys: &str, instead: &str) -> String {
    format!(
        "{keys:?} types those letters (and + means Shift in the key syntax); for the key combination write {instead:?}"
    )
}

/// A step after one that ends the run.
pub fn unreachable(ender: &str, ender_path: &str) -> String {
    format!("this step never runs: {ender} at {ender_path} ends the run before it")
}

/// A `wait` longer than the step's own `timeout_s`.
pub fn wait_outlasts_timeout(seconds: f64, timeout: f64) -> String {
    format!(
        "the wait of {seconds} s outlasts the step's timeout_s of {timeout} s: the step always fails"
    )
}

/// The summary line of a report.
pub fn report_summary(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, word: &str| {
        if n == 1 {
            format!("1 {word}")
        } else {
            format!("{n} {word}s")
        }
    };
    if errors == 0 && warnings == 0 {
        "valid".to_owned()
    } else if errors == 0 {
        format!("valid, {}", plural(warnings, "warning"))
    } else {
        format!(
            "invalid: {}, {}",
            plural(errors, "error"),
            plural(warnings, "warning")
        )
    }
}

/// Issues past the report's cap.
pub fn more_issues(count: usize, kind: &str) -> String {
    format!("… and {count} more {kind}s not listed")
}

/// A screen-power step on a device without one.
pub fn no_screen_power(device: &str, kind: &str) -> String {
    format!(
        "{device} has no screen power: {kind} fails there with \"not supported on this device\""
    )
}

/// `keep_screen` on a device without a screen to keep awake.
pub fn keep_screen_noop(device: &str) -> String {
    format!("{device} has no screen to keep awake: keep_screen does nothing there")
}

/// `open_app` with a url on the desktop.
pub const URL_ON_DESKTOP: &str = "the desktop opens applications, not addresses: open a url on a browser device (\"device\": \"browser\"), or open a browser application by its name";

/// `open_app` with an `app` in the browser.
pub const APP_IN_BROWSER: &str = "a browser device opens addresses, not applications: give a url, or run the task on the desktop (\"device\": \"local\")";

/// `stop_app` in the browser with an app that is no site.
pub fn stop_app_in_browser(app: &str) -> String {
    format!(
        "a browser device has no applications to stop: there stop_app closes the tabs of a site, named by the page's host as the tab list shows it (\"example.org\", \"file\"); {app:?} is no host"
    )
}

/// A gesture of more than two points where only straight drags exist.
pub fn gesture_straight(device: &str) -> String {
    format!(
        "{device} drags in a straight line from the first point to the last; the points between are not followed"
    )
}
