//! The step types that hold sub-steps (`loop`, `group`, `if_el`, `for_each`): their own fields here; the
//! sub-step lists are handed back raw, so the step's own fields are checked before its
//! sub-steps, in document order.

use serde_json::Value;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Map;

use super::actions::VarName;
use super::ctx::Ctx;
use super::fields::{Count, Fields, Flag, Number, Read, Spot, Text};
use super::scope::Round;
use super::selector::SelectorRead;
use crate::step::limits::{
    DEFAULT_LOOP_MAX, DEFAULT_ROUND_NAME, MAX_LOOP, MAX_ROUNDS, MAX_TEXT_CHARS, MAX_WAIT_S,
};
use crate::step::{Action, ForEach, Group, IfEl, Item, Loop, Repeat, Source, StepType};
use crate::texts;
use crate::vars::is_reference;

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
        StepType::ForEach => for_each(ctx, f, &mut lists),
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
        (Action::ForEach(e), "steps") => Some(&mut e.steps),
        _ => None,
    }
}

fn for_each<'a>(ctx: &mut Ctx<'_>, f: &mut Fields<'a>, lists: &mut Lists<'a>) -> Option<Action> {
    let items = f.opt(ctx, "items", Items);
    let variable = f.opt(ctx, "variable", VarName);
    let csv = f.opt(ctx, "csv", Text::nonempty());
    let name = f.or(ctx, "as", VarName, DEFAULT_ROUND_NAME.to_owned());
    list(ctx, f, "steps", true, lists);
    let source = match (items?, variable?, csv?) {
        (Some(items), None, None) => Source::Items { items },
        (None, Some(variable), None) => {
            // a round's value could go anywhere (a selector, a message): never a secret's
            if let Some(secret) = ctx.vars.secret_of(&variable) {
                let message = texts::secret_used_in(&variable, secret, "a for_each's variable");
                ctx.error(f.at("variable"), message);
            }
            Source::Variable { variable }
        }
        (None, None, Some(csv)) => {
            if !csv.contains("{{") && !csv.starts_with('/') {
                ctx.error(f.at("csv"), texts::csv_not_absolute(&csv));
            }
            Source::Csv { csv }
        }
        (None, None, None) => {
            ctx.error(f.path(), texts::FOR_EACH_NEEDS_ONE);
            return None;
        }
        _ => {
            ctx.error(f.path(), texts::FOR_EACH_MORE_THAN_ONE);
            return None;
        }
    };
    Some(Action::ForEach(ForEach {
        source,
        name: name?,
        steps: Vec::new(),
    }))
}

/// The round a `for_each` object (raw) puts in scope for its steps: its `as` (the default when
/// it has none or a bad one, which is reported on its own) and, for written `items`, the fields
/// of their objects.
pub(super) fn round_of(obj: &Map<String, serde_json::Value>) -> Round {
    let name = obj
        .get("as")
        .and_then(serde_json::Value::as_str)
        .unwrap_or(DEFAULT_ROUND_NAME)
        .to_owned();
    // Written items: the fields of their objects (a text item has none).
    let fields = obj.get("items").and_then(|v| v.as_array()).map(|items| {
        items
            .iter()
            .filter_map(|item| item.as_object())
            .flat_map(|o| o.keys().cloned())
            .collect::<BTreeSet<_>>()
    });
    Round { name, fields }
}

/// `for_each`'s `items`: at most [`MAX_ROUNDS`] texts or flat objects.
struct Items;

impl Read for Items {
    type Out = Vec<Item>;
    fn what(&self) -> String {
        texts::ITEMS_WHAT.to_owned()
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &serde_json::Value, at: &Spot<'_>) -> Option<Vec<Item>> {
        let Some(raw) = v.as_array() else {
            at.wrong(ctx, &self.what(), v);
            return None;
        };
        if raw.len() > MAX_ROUNDS {
            ctx.error(
                at.path.clone(),
                texts::too_many_items(raw.len(), MAX_ROUNDS),
            );
            return None;
        }
        let before = ctx.error_count();
        let mut out = Vec::with_capacity(raw.len());
        for (i, item) in raw.iter().enumerate() {
            let path = format!("{}[{i}]", at.path);
            if let Some(item) = read_item(ctx, item, &path) {
                out.push(item);
            }
        }
        (ctx.error_count() == before).then_some(out)
    }
}

fn read_item(ctx: &mut Ctx<'_>, v: &serde_json::Value, path: &str) -> Option<Item> {
    use serde_json::Value;
    let text = |ctx: &mut Ctx<'_>, s: &str, path: &str| {
        let ok = s.chars().count() <= MAX_TEXT_CHARS;
        if !ok {
            ctx.error(path, texts::bad_item(&texts::describe_len(s)));
        }
        ok.then(|| s.to_owned())
    };
    match v {
        Value::String(s) => text(ctx, s, path).map(Item::Text),
        Value::Object(obj) => {
            let before = ctx.error_count();
            let mut fields = BTreeMap::new();
            for (key, value) in obj {
                let at = format!("{path}.{key}");
                if !is_reference(&format!("item.{key}")) {
                    ctx.error(at.clone(), texts::bad_item_field(key));
                }
                let shown = match value {
                    Value::String(s) => text(ctx, s, &at),
                    Value::Number(n) => Some(n.to_string()),
                    Value::Bool(b) => Some(b.to_string()),
                    other => {
                        ctx.error(at, texts::bad_item(&texts::describe(other)));
                        None
                    }
                };
                fields.extend(shown.map(|s| (key.clone(), s)));
            }
            (ctx.error_count() == before).then_some(Item::Fields(fields))
        }
        other => {
            ctx.error(path, texts::bad_item(&texts::describe(other)));
            None
        }
    }
}
