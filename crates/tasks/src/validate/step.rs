//! One step and one step list: the `type` (a typo gets the closest name; library mode refuses
//! the task-only types), the fields every step takes, the type's parameters, the checks that
//! need the variables in scope, the sub-steps (nesting and count limits), and the warnings.

use serde_json::Value;

use super::ctx::Ctx;
use super::fields::{Choice, Count, Fields, Number, Read, Spot, Text};
use super::suggest::closest;
use super::{actions, content, flow, lints};
use crate::step::limits::{
    MAX_DEPTH, MAX_NOTE_CHARS, MAX_RETRIES, MAX_RETRY_BACKOFF, MAX_RETRY_DELAY_S,
    MAX_STEP_TIMEOUT_S, MAX_WAIT_S,
};
use crate::step::{Action, Clipboard, OnError, Retry, Step, StepType};
use crate::texts;

/// The fields every step takes besides `type`.
pub(super) const COMMON: &[&str] = &["timeout_s", "on_error", "note"];

pub(super) const ON_ERROR: Choice<OnError> =
    Choice(&[("stop", OnError::Stop), ("continue", OnError::Continue)]);

/// Selector fields people write at the step's level by mistake.
const SELECTOR_FIELDS: &[&str] = &["text", "match", "index", "within"];

/// Field names that are coordinates (refused with a reason in library mode).
const COORDINATES: &[&str] = &["x", "y", "points", "x1", "y1", "x2", "y2", "coordinates"];

/// The list `v` at `path` (`steps`, `steps[2].then`), its steps `depth` containers deep.
pub(super) fn list(ctx: &mut Ctx<'_>, v: &Value, path: &str, depth: usize) -> Option<Vec<Step>> {
    let Some(items) = v.as_array() else {
        ctx.error(path, texts::steps_not_list(&texts::describe(v)));
        return None;
    };
    if depth > MAX_DEPTH {
        ctx.error(path, texts::too_deep(MAX_DEPTH));
        return None;
    }
    let before = ctx.error_count();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if let Some(s) = step(ctx, item, &format!("{path}[{i}]"), depth) {
            out.push(s);
        }
    }
    if ctx.error_count() != before {
        return None;
    }
    lints::list(ctx, &out, path);
    Some(out)
}

/// The step `v` at `path`.
fn step(ctx: &mut Ctx<'_>, v: &Value, path: &str, depth: usize) -> Option<Step> {
    ctx.count += 1;
    let Some(obj) = v.as_object() else {
        ctx.error(path, texts::step_not_object(&texts::describe(v)));
        return None;
    };
    let kind = step_type(ctx, obj.get("type"), path)?;
    let before = ctx.error_count();
    let mark = ctx.vars.mark();
    let mut f = Fields::new(obj, path, kind.as_str());
    f.take_quietly("type");
    let timeout = if kind == StepType::WaitEl {
        Number::seconds(0.0, MAX_WAIT_S)
    } else {
        Number::timeout(MAX_STEP_TIMEOUT_S)
    };
    let timeout_s = f.opt(ctx, "timeout_s", timeout);
    let on_error = f.opt(ctx, "on_error", ON_ERROR);
    let note = f.opt(
        ctx,
        "note",
        Text {
            min: 0,
            max: MAX_NOTE_CHARS,
        },
    );
    let retry = retry(ctx, &mut f, kind);
    let (action, lists) = if kind.is_container() {
        flow::container(ctx, &mut f, kind)
    } else {
        (actions::leaf(ctx, &mut f, kind), Vec::new())
    };
    refuse_unknown(ctx, &f, kind);
    let mut step = match (action, timeout_s, on_error, retry, note) {
        (Some(action), Some(timeout_s), Some(on_error), Some(retry), Some(note)) => Some(Step {
            action,
            timeout_s,
            on_error,
            retry,
            note,
        }),
        _ => None,
    };
    if let Some(s) = &step
        && ctx.error_count() == before
    {
        content::check(ctx, &s.action, path, mark);
    }
    let round = (kind == StepType::ForEach).then(|| flow::round_of(obj));
    if let Some(r) = &round
        && let Some(what) = ctx.vars.taken(&r.name, mark)
    {
        ctx.error(format!("{path}.as"), texts::round_name_taken(&r.name, what));
    }
    if let Some(r) = round {
        ctx.vars.enter_round(r);
    }
    for (field, raw) in lists {
        let steps = list(ctx, raw, &format!("{path}.{field}"), depth + 1);
        if let (Some(s), Some(steps)) = (&mut step, steps)
            && let Some(slot) = flow::list_mut(&mut s.action, field)
        {
            *slot = steps;
        }
    }
    if kind == StepType::ForEach {
        ctx.vars.leave_round();
    }
    let step = step.filter(|_| ctx.error_count() == before)?;
    lints::step(ctx, &step, path);
    if let Action::Clipboard(Clipboard::Read { into }) = &step.action {
        ctx.vars.read(into, path);
    }
    Some(step)
}

/// The step's `retry`, refused on the types that do not take it.
fn retry(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, kind: StepType) -> Option<Option<Retry>> {
    let given = f.take_quietly("retry");
    if kind.takes_retry() {
        return match given {
            Some(v) => RetryRead.read(ctx, v, &spot(f, "retry")).map(Some),
            None => Some(None),
        };
    }
    if given.is_some() {
        let retrying: Vec<&str> = StepType::retrying().map(StepType::as_str).collect();
        ctx.error(
            f.at("retry"),
            texts::retry_not_taken(kind.as_str(), &retrying),
        );
        return None;
    }
    Some(None)
}

fn spot<'s>(f: &'s Fields<'_>, field: &'s str) -> Spot<'s> {
    Spot {
        path: f.at(field),
        owner: f.owner(),
        field,
    }
}

/// A `retry` object: `times`, and `delay_s` and `backoff` with their defaults.
struct RetryRead;

impl Read for RetryRead {
    type Out = Retry;
    fn what(&self) -> String {
        texts::RETRY_WHAT.to_owned()
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &Value, at: &Spot<'_>) -> Option<Retry> {
        let Some(obj) = v.as_object() else {
            at.wrong(ctx, &self.what(), v);
            return None;
        };
        let mut f = Fields::new(obj, &at.path, "retry");
        let times = f.req(
            ctx,
            "times",
            Count {
                min: 1,
                max: MAX_RETRIES,
            },
        );
        let delay_s = f.or(ctx, "delay_s", Number::seconds(0.0, MAX_RETRY_DELAY_S), 0.0);
        let backoff = Number {
            min: 1.0,
            max: MAX_RETRY_BACKOFF,
            exclusive_min: false,
            unit: "",
        };
        let backoff = f.or(ctx, "backoff", backoff, 1.0);
        f.refuse_unknown(ctx, &[], &|_| None);
        Some(Retry {
            times: times?,
            delay_s: delay_s?,
            backoff: backoff?,
        })
    }
}

fn step_type(ctx: &mut Ctx<'_>, v: Option<&Value>, path: &str) -> Option<StepType> {
    let at = format!("{path}.type");
    let library = ctx.library();
    let name = match v {
        None | Some(Value::Null) => {
            ctx.error(at, texts::step_needs_type(&StepType::names(library)));
            return None;
        }
        Some(Value::String(s)) => s,
        Some(other) => {
            ctx.error(at, texts::step_type_not_string(&texts::describe(other)));
            return None;
        }
    };
    let Ok(kind) = name.parse::<StepType>() else {
        let names = StepType::names(library);
        let hint = closest(name, names.iter().copied());
        ctx.error(at, texts::unknown_step_type(name, hint, &names));
        return None;
    };
    if library && !kind.is_library() {
        let by_coordinates = matches!(kind, StepType::ClickXy | StepType::Gesture);
        let text = texts::library_refused(kind.as_str(), by_coordinates, &StepType::names(true));
        ctx.error(at, text);
        return None;
    }
    Some(kind)
}

fn refuse_unknown(ctx: &mut Ctx<'_>, f: &Fields<'_>, kind: StepType) {
    let library = ctx.library();
    let takes_selector = f.taken().contains(&"selector");
    let owner = kind.as_str();
    let own: Vec<&str> = f
        .taken()
        .iter()
        .copied()
        .filter(|n| !COMMON.contains(n) && !matches!(*n, "type" | "retry"))
        .collect();
    f.refuse_unknown(ctx, COMMON, &|key| {
        if kind.takes_retry() && closest(key, ["retry"]).is_some() {
            Some(texts::unknown_field(
                owner,
                key,
                Some("retry"),
                &own,
                COMMON,
            ))
        } else if takes_selector && SELECTOR_FIELDS.contains(&key) {
            Some(texts::selector_field_outside(owner, key))
        } else if library && COORDINATES.contains(&key) {
            Some(texts::coordinates_in_library(owner, key))
        } else {
            None
        }
    });
}

/// The fields a step type takes (its own, then the common ones), from the same reads the
/// validator makes.
pub(super) fn fields_of(kind: StepType) -> Vec<&'static str> {
    let opts = super::Options::default();
    let mut ctx = Ctx::new(&opts);
    let empty = serde_json::Map::new();
    let mut f = Fields::new(&empty, "", kind.as_str());
    for c in COMMON {
        f.take(c);
    }
    if kind.is_container() {
        let _ = flow::container(&mut ctx, &mut f, kind);
    } else {
        let _ = actions::leaf(&mut ctx, &mut f, kind);
    }
    let mut out: Vec<&'static str> = f
        .taken()
        .iter()
        .copied()
        .filter(|n| !COMMON.contains(n) && *n != "retry")
        .collect();
    if kind.takes_retry() {
        out.push("retry");
    }
    out.extend_from_slice(COMMON);
    out
}
