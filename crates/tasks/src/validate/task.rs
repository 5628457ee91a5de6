//! The task object: its own fields (name, device, on_error, timeout_s, variables,
//! screenshots, and `$schema` for editors), its steps, and the checks over the whole task (step count, unused
//! variables).

use serde_json::{Map, Value};

use super::ctx::Ctx;
use super::device::DeviceKind;
use super::fields::{Choice, Fields, Number, Read, Spot, Text};
use super::step::{ON_ERROR, list};
use super::variables::warn_unused;
use crate::step::limits::*;
use crate::step::{OnError, Screenshots, SecretRef, Task, Variable};
use crate::texts;
use crate::vars::{is_secret_name, is_valid_name};
use std::collections::BTreeMap;

pub(super) fn task(ctx: &mut Ctx<'_>, v: &Value) -> Option<Task> {
    let Some(obj) = v.as_object() else {
        ctx.error("", texts::task_not_object(&texts::describe(v)));
        return None;
    };
    let mut f = Fields::new(obj, "", "the task");
    if let Some(v) = f.take_quietly("$schema")
        && !v.is_string()
    {
        ctx.error(
            "$schema",
            texts::wrong_value("the task", "$schema", "a string", &texts::describe(v)),
        );
    }
    let name = f.req(ctx, "name", Text::name());
    let device = f.opt(ctx, "device", Text::name());
    let on_error = f.or(ctx, "on_error", ON_ERROR, OnError::Stop);
    let timeout_s = f.opt(ctx, "timeout_s", Number::timeout(MAX_TASK_TIMEOUT_S));
    let variables = variables(ctx, &mut f);
    let screenshots = f.or(ctx, "screenshots", SCREENSHOTS, Screenshots::OnFailure);
    let raw_steps = f.take("steps");
    f.refuse_unknown(ctx, &[], &|_| None);
    if ctx.device.is_none() {
        ctx.device = device.clone().flatten().map(|d| DeviceKind::of_device(&d));
    }
    let steps = match raw_steps {
        Some(v) => steps(ctx, v),
        None => {
            ctx.error(
                "steps",
                texts::missing("the task", "steps", texts::STEPS_WHAT),
            );
            None
        }
    };
    warn_unused(ctx);
    Some(Task {
        name: name?,
        device: device?,
        steps: steps?,
        on_error: on_error?,
        timeout_s: timeout_s?,
        variables: variables?,
        screenshots: screenshots?,
    })
}

/// The task's `screenshots` values.
const SCREENSHOTS: Choice<Screenshots> = Choice(&[
    ("on_failure", Screenshots::OnFailure),
    ("every_step", Screenshots::EveryStep),
    ("never", Screenshots::Never),
]);

/// A top-level step list: the task's, or the action library's steps on their own.
pub(super) fn steps(ctx: &mut Ctx<'_>, v: &Value) -> Option<Vec<crate::step::Step>> {
    let steps = list(ctx, v, "steps", 0);
    if ctx.count > MAX_STEPS {
        ctx.error("steps", texts::too_many_steps(ctx.count, MAX_STEPS));
    }
    if v.as_array().is_some_and(Vec::is_empty) {
        ctx.warn("steps", texts::NO_STEPS);
    }
    steps
}

fn variables(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<BTreeMap<String, Variable>> {
    let Some(v) = f.take("variables") else {
        return Some(BTreeMap::new());
    };
    let Some(obj) = v.as_object() else {
        ctx.error(
            "variables",
            texts::wrong_value(
                "the task",
                "variables",
                texts::VARIABLES_WHAT,
                &texts::describe(v),
            ),
        );
        return None;
    };
    if obj.len() > MAX_VARIABLES {
        ctx.error(
            "variables",
            texts::too_many_variables(obj.len(), MAX_VARIABLES),
        );
        return None;
    }
    declared(ctx, obj)
}

fn declared(ctx: &mut Ctx<'_>, obj: &Map<String, Value>) -> Option<BTreeMap<String, Variable>> {
    let before = ctx.error_count();
    let mut out = BTreeMap::new();
    for (name, value) in obj {
        let path = format!("variables.{name}");
        if !is_valid_name(name) || name.chars().count() > MAX_VARIABLE_NAME_CHARS {
            ctx.error(path, texts::bad_variable_name(name));
            continue;
        }
        if let Value::Object(secret) = value {
            match secret_ref(ctx, &path, name, secret) {
                Some(s) => {
                    ctx.vars.declare_secret(name, &s.secret);
                    out.insert(name.clone(), Variable::Secret(s));
                }
                // Declared all the same: its uses are not unknown variables too.
                None => ctx.vars.declare(name, ""),
            }
            continue;
        }
        let owner = format!("the variable {name}");
        let spot = Spot {
            path,
            owner: &owner,
            field: "value",
        };
        if let Some(value) = Text::any().read(ctx, value, &spot) {
            ctx.vars.declare(name, &value);
            out.insert(name.clone(), Variable::Text(value));
        }
    }
    (ctx.error_count() == before).then_some(out)
}

/// `{"secret": "NAME"}`: a secret variable, which a run request cannot give another value.
fn secret_ref(
    ctx: &mut Ctx<'_>,
    path: &str,
    variable: &str,
    obj: &Map<String, Value>,
) -> Option<SecretRef> {
    let name = match obj.get("secret") {
        Some(Value::String(name)) if obj.len() == 1 => name,
        _ => {
            let shown = texts::describe(&Value::Object(obj.clone()));
            ctx.error(path, texts::bad_secret_variable(variable, &shown));
            return None;
        }
    };
    if ctx.library() {
        ctx.error(path, texts::secret_in_library(variable));
        return None;
    }
    if !is_secret_name(name) {
        ctx.error(format!("{path}.secret"), texts::bad_secret_name(name));
        return None;
    }
    if ctx.vars.is_provided(variable) {
        ctx.error(path, texts::secret_variable_provided(variable, name));
        return None;
    }
    Some(SecretRef {
        secret: name.clone(),
    })
}
