//! Reading a selector (`{"text"?, "type"?, "match"?, "index"?, "within"?}`) by hand, so each
//! wrong field is reported at its path; what the selector means (a type word, a regex that
//! compiles) is checked afterwards by `Selector::problems`, with the variables previewed.

use deft_protocol::selector::{MatchMode, Selector};
use serde_json::Value;

use super::ctx::Ctx;
use super::fields::{Choice, Count, Fields, Read, Spot, Text};
use crate::step::limits::{MAX_NAME_CHARS, MAX_TEXT_CHARS};
use crate::texts;

/// Highest `index` a selector may ask for.
pub const MAX_INDEX: u32 = 10_000;

const MODES: Choice<MatchMode> = Choice(&[
    ("exact", MatchMode::Exact),
    ("contains", MatchMode::Contains),
    ("fuzzy", MatchMode::Fuzzy),
    ("regex", MatchMode::Regex),
]);

/// A selector object.
pub(super) struct SelectorRead;

impl Read for SelectorRead {
    type Out = Selector;

    fn what(&self) -> String {
        texts::SELECTOR_WHAT.to_owned()
    }

    fn read(&self, ctx: &mut Ctx<'_>, v: &Value, at: &Spot<'_>) -> Option<Selector> {
        let obj = match v {
            Value::Object(obj) => obj,
            Value::String(s) => {
                ctx.error(
                    at.path.clone(),
                    texts::selector_as_string(at.owner, at.field, s),
                );
                return None;
            }
            other => {
                at.wrong(ctx, &self.what(), other);
                return None;
            }
        };
        let mut f = Fields::new(obj, &at.path, "the selector");
        let text = f.opt(
            ctx,
            "text",
            Text {
                min: 0,
                max: MAX_TEXT_CHARS,
            },
        );
        let kind = f.opt(
            ctx,
            "type",
            Text {
                min: 0,
                max: MAX_NAME_CHARS,
            },
        );
        let mode = f.or(ctx, "match", MODES, MatchMode::Contains);
        let index = f.opt(
            ctx,
            "index",
            Count {
                min: 0,
                max: MAX_INDEX,
            },
        );
        let within = f.opt(ctx, "within", SelectorRead);
        f.refuse_unknown(ctx, &[], &|_| None);
        Some(Selector {
            text: text?,
            kind: kind?,
            mode: mode?,
            index: index?.map(|i| i as usize),
            within: within?.map(Box::new),
        })
    }
}
