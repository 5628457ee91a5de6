//! The step types that hold sub-steps (`loop`, `group`, `if_el`): their own fields here; the
//! sub-step lists are handed back raw, so the step's own fields are checked before its
//! sub-steps, in document order.

use serde_json::Value;

use super::ctx::Ctx;
use super::fields::{Count, Fields, Flag, Number, Text};
use super::selector::SelectorRead;
use crate::step::limits::{DEFAULT_LOOP_MAX, MAX_LOOP, MAX_WAIT_S};
use crate::step::{Action, Group, IfEl, Loop, Repeat, StepType};
use crate::texts;

/// The sub-step lists present, by field.
pub(super) type Lists<'a> = Vec<(&'static str, &'a Value)>;

/// A container step's action with empty sub-step lists, and the raw lists to fill them from.
pub(super) fn container<'a>(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'a>,
    kind: StepType,
) -> (Option<Action>, Lists<'a>) {
    let mut lists = Vec::new();
    let action = match kind {
        StepType::Loop => looped(ctx, f, &mut lists),
        StepType::Group => {
            let name = f.req(ctx, "name", Text::name());
            list(ctx, f, "steps", true, &mut lists);
            name.map(|name| {
                Action::Group(Group {
                    name,
                    steps: Vec::new(),
                })
            })
        }
        StepType::IfEl => if_el(ctx, f, &mut lists),
        _ => None,
    };
    (action, lists)
}

/// Takes a sub-step list (reporting it when it is missing or not a list).
fn list<'a>(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'a>,
    field: &'static str,
    required: bool,
    lists: &mut Lists<'a>,
) {
    match f.take(field) {
        Some(v) if v.is_array() => lists.push((field, v)),
        Some(v) => ctx.error(
            f.at(field),
            texts::wrong_value(f.owner(), field, texts::STEPS_WHAT, &texts::describe(v)),
        ),
        None if required => ctx.error(
            f.at(field),
            texts::missing(f.owner(), field, texts::STEPS_WHAT),
        ),
        None => {}
    }
}

fn looped<'a>(ctx: &mut Ctx<'_>, f: &mut Fields<'a>, lists: &mut Lists<'a>) -> Option<Action> {
    let rounds = Count {
        min: 1,
        max: MAX_LOOP,
    };
    let times = f.opt(ctx, "times", Count { ..rounds });
    let while_ = f.opt(ctx, "while", SelectorRead);
    let until = f.opt(ctx, "until", SelectorRead);
    let max = f.opt(ctx, "max", rounds);
    list(ctx, f, "steps", true, lists);
    let (times, while_, until, max) = (times?, while_?, until?, max?);
    let cap = max.unwrap_or(DEFAULT_LOOP_MAX);
    let repeat = match (times, while_, until) {
        (Some(times), None, None) => {
            if max.is_some() {
                ctx.error(f.at("max"), texts::LOOP_MAX_WITH_TIMES);
            }
            Repeat::Times { times }
        }
        (None, Some(selector), None) => Repeat::While { selector, max: cap },
        (None, None, Some(selector)) => Repeat::Until { selector, max: cap },
        (None, None, None) => {
            ctx.error(f.path(), texts::LOOP_NEEDS_ONE);
            return None;
        }
        _ => {
            ctx.error(f.path(), texts::LOOP_MORE_THAN_ONE);
            return None;
        }
    };
    Some(Action::Loop(Loop {
        repeat,
        steps: Vec::new(),
    }))
}

fn if_el<'a>(ctx: &mut Ctx<'_>, f: &mut Fields<'a>, lists: &mut Lists<'a>) -> Option<Action> {
    let selector = f.req(ctx, "selector", SelectorRead);
    let gone = f.or(ctx, "gone", Flag, false);
    let wait_s = f.or(ctx, "wait_s", Number::seconds(0.0, MAX_WAIT_S), 0.0);
    list(ctx, f, "then", true, lists);
    list(ctx, f, "else", false, lists);
    Some(Action::IfEl(IfEl {
        selector: selector?,
        gone: gone?,
        wait_s: wait_s?,
        then: Vec::new(),
        otherwise: Vec::new(),
    }))
}

/// The sub-step list `field` of a container action.
pub(super) fn list_mut<'s>(
    action: &'s mut Action,
    field: &str,
) -> Option<&'s mut Vec<crate::step::Step>> {
    match (action, field) {
        (Action::Loop(l), "steps") => Some(&mut l.steps),
        (Action::Group(g), "steps") => Some(&mut g.steps),
        (Action::IfEl(i), "then") => Some(&mut i.then),
        (Action::IfEl(i), "else") => Some(&mut i.otherwise),
        _ => None,
    }
}
