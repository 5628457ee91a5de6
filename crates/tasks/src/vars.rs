//! Variables: `{{name}}` in a step's text parameters, replaced at run time by the value from
//! the task's `variables`, the run request or an earlier `clipboard` read. [`Action::texts_mut`]
//! is the one list of the parameters that expand (the validator checks the same ones); the
//! runner calls [`Action::expanded`] right before it plays a step, so a value read by a
//! clipboard step is seen by the steps after it.
//!
//! ```
//! use deft_tasks::vars::{expand, Vars};
//! let mut vars = Vars::default();
//! vars.set("city", "苏州");
//! assert_eq!(expand("Weather in {{city}}", &vars).unwrap(), "Weather in 苏州");
//! assert!(expand("{{ missing }}", &vars).unwrap_err().to_string().contains("{{missing}}"));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use deft_protocol::selector::Selector;

use crate::step::{Action, Clipboard, Finish, OpenApp, Repeat, Task, Variable};
use crate::texts;

/// The longest a secret's name may be.
pub const MAX_SECRET_NAME_CHARS: usize = 64;

/// Whether `name` is a secret's name: a letter, then letters, digits and `_`, at most
/// [`MAX_SECRET_NAME_CHARS`] in all (`LOGIN_PW`).
pub fn is_secret_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= MAX_SECRET_NAME_CHARS
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The secrets a task file's variables name (`{"secret": "NAME"}`), each once, in order; read
/// leniently from the raw file, valid or not, so a stored task that no longer validates still
/// counts as using its secrets.
pub fn secret_names_in(definition: &str) -> Vec<String> {
    let Ok(serde_json::Value::Object(task)) = serde_json::from_str(definition) else {
        return Vec::new();
    };
    let Some(serde_json::Value::Object(vars)) = task.get("variables") else {
        return Vec::new();
    };
    let mut names: Vec<String> = vars
        .values()
        .filter_map(|v| v.get("secret")?.as_str().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// One `{{name}}` in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference<'a> {
    /// The variable's name (without the braces and spaces).
    pub name: &'a str,
    /// Where the whole `{{ … }}` sits in the text, in bytes.
    pub range: Range<usize>,
}

/// Whether `name` is a variable name: a letter or `_`, then letters, digits and `_`.
pub fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `inner` (what stands between `{{` and `}}`, spaces trimmed) is a reference: a
/// name, or a name, a dot and a field of a `for_each` round (`row.Order`, `item.Straße`:
/// letters, digits, `_`, `-` and inner spaces, as a CSV header may have them).
pub fn is_reference(inner: &str) -> bool {
    match inner.split_once('.') {
        None => is_valid_name(inner),
        Some((base, field)) => {
            is_valid_name(base)
                && !field.trim().is_empty()
                && field.trim() == field
                && field
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
        }
    }
}

/// Every `{{name}}` (and `{{name.field}}`) in `text`, in order. Spaces inside the braces are
/// allowed (`{{ name }}`); braces around anything that is not a name are plain text (the key
/// syntax's `{{}` types a `{`).
pub fn references(text: &str) -> Vec<Reference<'_>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("{{").map(|i| from + i) {
        let inner_start = at + 2;
        match text[inner_start..].find("}}") {
            Some(len) => {
                let inner = &text[inner_start..inner_start + len];
                let name = inner.trim_matches(' ');
                if is_reference(name) {
                    let end = inner_start + len + 2;
                    out.push(Reference {
                        name,
                        range: at..end,
                    });
                    from = end;
                } else {
                    from = at + 1;
                }
            }
            None => break,
        }
    }
    out
}

/// The variables of one run: names and their current values, and which values are secrets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Vars {
    values: BTreeMap<String, String>,
    /// Each secret value of the run with its secret's name.
    secrets: Vec<(String, String)>,
}

impl Vars {
    /// The task's variables, with the run request's values over its texts (never over a
    /// secret) and each secret variable's value from `secrets` (by secret name; one missing
    /// leaves its variable without a value).
    pub fn for_run(
        task: &Task,
        request: &BTreeMap<String, String>,
        secrets: &BTreeMap<String, String>,
    ) -> Self {
        let mut vars = Vars::default();
        for (name, variable) in &task.variables {
            match variable {
                Variable::Text(text) => {
                    let value = request.get(name).unwrap_or(text);
                    vars.set(name, value.clone());
                }
                Variable::Secret(s) => {
                    if let Some(value) = secrets.get(&s.secret) {
                        vars.set(name, value.clone());
                        vars.secrets.push((value.clone(), s.secret.clone()));
                    }
                }
            }
        }
        for (name, value) in request {
            if !task.variables.contains_key(name) {
                vars.set(name, value.clone());
            }
        }
        vars
    }

    /// What hides this run's secret values wherever they occur.
    pub fn redactor(&self) -> crate::redact::Redactor {
        crate::redact::Redactor::new(self.secrets.iter().map(|(v, n)| (v.as_str(), n.as_str())))
    }

    /// Sets (or replaces) a variable, as a `clipboard` read does.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.values.insert(name.into(), value.into());
    }

    /// Removes a variable (a `for_each` round's, once the loop is over); its old value.
    pub fn remove(&mut self, name: &str) -> Option<String> {
        self.values.remove(name)
    }

    /// A variable's value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Every variable and its value, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// Variables a step uses that have no value (at run time: a clipboard step that should have
/// set them did not run, or the run request left them out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarError {
    /// Each missing variable with the parameter that uses it (`selector.text`), in order.
    pub missing: Vec<(String, String)>,
}

impl fmt::Display for VarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&texts::variables_missing(&self.missing))
    }
}

impl std::error::Error for VarError {}

/// `text` with every `{{name}}` replaced by its value; the error names every variable without
/// one.
pub fn expand(text: &str, vars: &Vars) -> Result<String, VarError> {
    let mut missing = Vec::new();
    let out = expand_into(text, vars, "", &mut missing);
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(VarError { missing })
    }
}

fn expand_into(
    text: &str,
    vars: &Vars,
    field: &str,
    missing: &mut Vec<(String, String)>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in references(text) {
        out.push_str(&text[last..r.range.start]);
        match vars.get(r.name) {
            Some(v) => out.push_str(v),
            None => missing.push((field.to_owned(), r.name.to_owned())),
        }
        last = r.range.end;
    }
    out.push_str(&text[last..]);
    out
}

fn selector_texts<'a>(path: String, s: &'a mut Selector, out: &mut Vec<(String, &'a mut String)>) {
    let Selector { text, within, .. } = s;
    if let Some(t) = text {
        out.push((format!("{path}.text"), t));
    }
    if let Some(inner) = within {
        selector_texts(format!("{path}.within"), inner, out);
    }
}

impl Action {
    /// The parameters of this step (not of its sub-steps) in which `{{name}}` expands, with
    /// their paths relative to the step (`selector.text`, `selector.within.text`, `keys`).
    /// Names (`group`'s `name`, `read_into`), notes and enum values never expand.
    pub fn texts_mut(&mut self) -> Vec<(String, &mut String)> {
        let mut out = Vec::new();
        match self {
            Action::OpenApp(OpenApp::App {
                app, args, title, ..
            }) => {
                out.push(("app".to_owned(), app));
                for (i, a) in args.iter_mut().enumerate() {
                    out.push((format!("args[{i}]"), a));
                }
                if let Some(t) = title {
                    out.push(("title".to_owned(), t));
                }
            }
            Action::OpenApp(OpenApp::Url { url, .. }) => out.push(("url".to_owned(), url)),
            Action::StopApp(s) => out.push(("app".to_owned(), &mut s.app)),
            Action::KeyEvent(k) => {
                out.push(("keys".to_owned(), &mut k.keys));
                if let Some(s) = &mut k.selector {
                    selector_texts("selector".to_owned(), s, &mut out);
                }
            }
            Action::Swipe(s) => {
                if let Some(a) = &mut s.area {
                    selector_texts("area".to_owned(), a, &mut out);
                }
            }
            Action::SwipeUntil(s) => {
                selector_texts("selector".to_owned(), &mut s.selector, &mut out);
                if let Some(a) = &mut s.area {
                    selector_texts("area".to_owned(), a, &mut out);
                }
            }
            Action::Click(c) => selector_texts("selector".to_owned(), &mut c.selector, &mut out),
            Action::LongClick(c) => {
                selector_texts("selector".to_owned(), &mut c.selector, &mut out)
            }
            Action::WaitEl(w) => selector_texts("selector".to_owned(), &mut w.selector, &mut out),
            Action::InputText(t) => {
                selector_texts("selector".to_owned(), &mut t.selector, &mut out);
                out.push(("text".to_owned(), &mut t.text));
            }
            Action::Clipboard(Clipboard::Set { text }) => out.push(("set".to_owned(), text)),
            Action::Loop(l) => match &mut l.repeat {
                Repeat::While { selector, .. } => {
                    selector_texts("while".to_owned(), selector, &mut out)
                }
                Repeat::Until { selector, .. } => {
                    selector_texts("until".to_owned(), selector, &mut out)
                }
                Repeat::Times { .. } => {}
            },
            Action::IfEl(i) => selector_texts("selector".to_owned(), &mut i.selector, &mut out),
            Action::ForEach(f) => {
                if let crate::step::Source::Csv { csv } = &mut f.source {
                    out.push(("csv".to_owned(), csv));
                }
            }
            Action::Notify(n) => out.push(("message".to_owned(), &mut n.message)),
            Action::StopSelf(Finish { message: Some(m) })
            | Action::MarkDone(Finish { message: Some(m) }) => {
                out.push(("message".to_owned(), m));
            }
            Action::ScreenOn
            | Action::ScreenOff
            | Action::Clipboard(Clipboard::Read { .. })
            | Action::Wait(_)
            | Action::Group(_)
            | Action::ClickXy(_)
            | Action::Gesture(_)
            | Action::KeepScreen(_)
            | Action::StopSelf(_)
            | Action::MarkDone(_) => {}
        }
        out
    }

    /// The `{{name}}`s of this step's own parameters, each with the parameter's path relative
    /// to the step.
    pub fn references(&self) -> Vec<(String, String)> {
        let mut copy = self.shallow();
        copy.texts_mut()
            .into_iter()
            .flat_map(|(field, text)| {
                references(text)
                    .into_iter()
                    .map(|r| (field.clone(), r.name.to_owned()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// This step with `{{name}}` replaced in its own parameters (sub-steps are expanded when
    /// they run); the error names every variable without a value.
    pub fn expanded(&self, vars: &Vars) -> Result<Action, VarError> {
        let mut out = self.clone();
        let mut missing = Vec::new();
        for (field, text) in out.texts_mut() {
            if !references(text).is_empty() {
                *text = expand_into(text, vars, &field, &mut missing);
            }
        }
        if missing.is_empty() {
            Ok(out)
        } else {
            Err(VarError { missing })
        }
    }

    /// A copy without sub-steps (their texts are not this step's).
    pub(crate) fn shallow(&self) -> Action {
        match self {
            Action::Loop(l) => Action::Loop(crate::step::Loop {
                repeat: l.repeat.clone(),
                steps: Vec::new(),
            }),
            Action::Group(g) => Action::Group(crate::step::Group {
                name: g.name.clone(),
                steps: Vec::new(),
            }),
            Action::ForEach(f) => Action::ForEach(crate::step::ForEach {
                source: f.source.clone(),
                name: f.name.clone(),
                steps: Vec::new(),
            }),
            Action::IfEl(i) => Action::IfEl(crate::step::IfEl {
                selector: i.selector.clone(),
                gone: i.gone,
                wait_s: i.wait_s,
                then: Vec::new(),
                otherwise: Vec::new(),
            }),
            other => other.clone(),
        }
    }
}
