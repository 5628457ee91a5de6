//! Reading one JSON object's fields by hand: each read records the field as known (so the
//! fields nobody read are the unknown ones, and the list of what an object takes comes from
//! the same reads), `null` counts as absent, and every wrong value is reported at its path
//! with what was expected — missing, wrong type and out of range in one wording.

use serde_json::{Map, Value};

use super::ctx::Ctx;
use super::suggest::closest;
use crate::texts;

/// Where a value sits and whose it is, for the messages.
pub(super) struct Spot<'s> {
    /// The value's path.
    pub path: String,
    /// The object it belongs to, as the messages name it (`click`, `the task`, `the selector`).
    pub owner: &'s str,
    /// The field's name.
    pub field: &'s str,
}

impl Spot<'_> {
    /// Reports `v` as not what `what` says.
    pub fn wrong(&self, ctx: &mut Ctx<'_>, what: &str, v: &Value) {
        ctx.error(
            self.path.clone(),
            texts::wrong_value(self.owner, self.field, what, &texts::describe(v)),
        );
    }
}

/// A kind of value: what it is called in messages and how it is read.
pub(super) trait Read {
    type Out;
    /// What is expected, for the messages ("a number of seconds from 0 to 300").
    fn what(&self) -> String;
    /// The value, or `None` after reporting why not.
    fn read(&self, ctx: &mut Ctx<'_>, v: &Value, at: &Spot<'_>) -> Option<Self::Out>;
}

/// The fields of one object being read.
pub(super) struct Fields<'a> {
    obj: &'a Map<String, Value>,
    path: &'a str,
    owner: String,
    taken: Vec<&'static str>,
    /// Taken fields the "takes …" list leaves out (`type`, `$schema`).
    quiet: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    pub fn new(obj: &'a Map<String, Value>, path: &'a str, owner: impl Into<String>) -> Self {
        Fields {
            obj,
            path,
            owner: owner.into(),
            taken: Vec::new(),
            quiet: Vec::new(),
        }
    }

    pub fn path(&self) -> &'a str {
        self.path
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The path of a field of this object.
    pub fn at(&self, field: &str) -> String {
        if self.path.is_empty() {
            field.to_owned()
        } else {
            format!("{}.{field}", self.path)
        }
    }

    /// The field's value, `None` when absent or `null`; records it as known.
    pub fn take(&mut self, field: &'static str) -> Option<&'a Value> {
        if !self.taken.contains(&field) {
            self.taken.push(field);
        }
        self.obj.get(field).filter(|v| !v.is_null())
    }

    /// Takes a field that is not listed among those the object takes (`type`: the message is
    /// about the type already; `$schema`: for editors).
    pub fn take_quietly(&mut self, field: &'static str) -> Option<&'a Value> {
        self.quiet.push(field);
        self.take(field)
    }

    /// The fields read so far, in the order they were read.
    pub fn taken(&self) -> &[&'static str] {
        &self.taken
    }

    fn spot(&self, field: &'static str) -> Spot<'_> {
        Spot {
            path: self.at(field),
            owner: &self.owner,
            field,
        }
    }

    /// A field that must be there.
    pub fn req<R: Read>(&mut self, ctx: &mut Ctx<'_>, field: &'static str, r: R) -> Option<R::Out> {
        match self.take(field) {
            Some(v) => r.read(ctx, v, &self.spot(field)),
            None => {
                ctx.error(
                    self.at(field),
                    texts::missing(&self.owner, field, &r.what()),
                );
                None
            }
        }
    }

    /// A field that may be left out: `Some(None)` when it is.
    pub fn opt<R: Read>(
        &mut self,
        ctx: &mut Ctx<'_>,
        field: &'static str,
        r: R,
    ) -> Option<Option<R::Out>> {
        match self.take(field) {
            Some(v) => r.read(ctx, v, &self.spot(field)).map(Some),
            None => Some(None),
        }
    }

    /// A field with a default.
    pub fn or<R: Read>(
        &mut self,
        ctx: &mut Ctx<'_>,
        field: &'static str,
        r: R,
        default: R::Out,
    ) -> Option<R::Out> {
        self.opt(ctx, field, r).map(|v| v.unwrap_or(default))
    }

    /// Reports every field nobody read. `also` names fields every object of this kind takes
    /// besides its own (a step's `timeout_s`, …), and `hint` may explain a field that belongs
    /// elsewhere.
    pub fn refuse_unknown(
        &self,
        ctx: &mut Ctx<'_>,
        also: &[&'static str],
        hint: &dyn Fn(&str) -> Option<String>,
    ) {
        let own: Vec<&str> = self
            .taken
            .iter()
            .copied()
            .filter(|f| !also.contains(f) && !self.quiet.contains(f))
            .collect();
        for key in self.obj.keys() {
            if self.taken.contains(&key.as_str()) {
                continue;
            }
            let all = own.iter().chain(also.iter()).copied();
            let message = match hint(key) {
                Some(h) => h,
                None => texts::unknown_field(&self.owner, key, closest(key, all), &own, also),
            };
            ctx.error(self.at(key), message);
        }
    }
}

/// A number in a range; `exclusive_min` refuses the minimum itself.
pub(super) struct Number {
    pub min: f64,
    pub max: f64,
    pub exclusive_min: bool,
    /// "seconds", "a share of the area", "a fraction of the window's width" or "".
    pub unit: &'static str,
}

impl Number {
    pub fn seconds(min: f64, max: f64) -> Self {
        Number {
            min,
            max,
            exclusive_min: false,
            unit: "seconds",
        }
    }

    /// More than 0, at most `max` seconds.
    pub fn timeout(max: f64) -> Self {
        Number {
            min: 0.0,
            max,
            exclusive_min: true,
            unit: "seconds",
        }
    }

    pub fn fraction(unit: &'static str) -> Self {
        Number {
            min: 0.0,
            max: 1.0,
            exclusive_min: false,
            unit,
        }
    }
}

impl Read for Number {
    type Out = f64;
    fn what(&self) -> String {
        texts::number_what(self.min, self.max, self.exclusive_min, self.unit)
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &Value, at: &Spot<'_>) -> Option<f64> {
        let n = v.as_f64();
        let ok = n.is_some_and(|n| {
            n <= self.max && (n > self.min || (!self.exclusive_min && n == self.min))
        });
        if ok {
            n
        } else {
            at.wrong(ctx, &self.what(), v);
            None
        }
    }
}

/// A whole number in a range.
pub(super) struct Count {
    pub min: u32,
    pub max: u32,
}

impl Read for Count {
    type Out = u32;
    fn what(&self) -> String {
        texts::count_what(u64::from(self.min), u64::from(self.max))
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &Value, at: &Spot<'_>) -> Option<u32> {
        let n = v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64)
            })
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| (self.min..=self.max).contains(n));
        if n.is_none() {
            at.wrong(ctx, &self.what(), v);
        }
        n
    }
}

/// A string of `min`–`max` characters (`min` 1: not blank).
pub(super) struct Text {
    pub min: usize,
    pub max: usize,
}

impl Text {
    pub fn name() -> Self {
        Text {
            min: 1,
            max: crate::step::limits::MAX_NAME_CHARS,
        }
    }

    /// Non-blank, at most [`MAX_TEXT_CHARS`](crate::step::limits::MAX_TEXT_CHARS).
    pub fn nonempty() -> Self {
        Text {
            min: 1,
            max: crate::step::limits::MAX_TEXT_CHARS,
        }
    }

    /// Possibly empty, at most [`MAX_TEXT_CHARS`](crate::step::limits::MAX_TEXT_CHARS).
    pub fn any() -> Self {
        Text {
            min: 0,
            max: crate::step::limits::MAX_TEXT_CHARS,
        }
    }
}

impl Read for Text {
    type Out = String;
    fn what(&self) -> String {
        texts::text_what(self.min, self.max)
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &Value, at: &Spot<'_>) -> Option<String> {
        let Some(s) = v.as_str() else {
            at.wrong(ctx, &self.what(), v);
            return None;
        };
        let chars = s.chars().count();
        let blank = self.min > 0 && s.trim().is_empty();
        if blank || chars > self.max {
            ctx.error(
                at.path.clone(),
                texts::wrong_value(at.owner, at.field, &self.what(), &texts::describe_len(s)),
            );
            return None;
        }
        Some(s.to_owned())
    }
}

/// `true` or `false`.
pub(super) struct Flag;

impl Read for Flag {
    type Out = bool;
    fn what(&self) -> String {
        "true or false".to_owned()
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &Value, at: &Spot<'_>) -> Option<bool> {
        let b = v.as_bool();
        if b.is_none() {
            at.wrong(ctx, &self.what(), v);
        }
        b
    }
}

/// One of some words.
pub(super) struct Choice<T: Copy + 'static>(pub &'static [(&'static str, T)]);

impl<T: Copy> Read for Choice<T> {
    type Out = T;
    fn what(&self) -> String {
        texts::one_of(self.0.iter().map(|(w, _)| *w))
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &Value, at: &Spot<'_>) -> Option<T> {
        let found = v
            .as_str()
            .and_then(|s| self.0.iter().find(|(w, _)| *w == s))
            .map(|(_, t)| *t);
        if found.is_none() {
            at.wrong(ctx, &self.what(), v);
        }
        found
    }
}

/// A list of strings.
pub(super) struct Strings;

impl Read for Strings {
    type Out = Vec<String>;
    fn what(&self) -> String {
        "a list of strings".to_owned()
    }
    fn read(&self, ctx: &mut Ctx<'_>, v: &Value, at: &Spot<'_>) -> Option<Vec<String>> {
        let Some(items) = v.as_array() else {
            at.wrong(ctx, &self.what(), v);
            return None;
        };
        let before = ctx.error_count();
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let spot = Spot {
                path: format!("{}[{i}]", at.path),
                owner: at.owner,
                field: at.field,
            };
            if let Some(s) = Text::any().read(ctx, item, &spot) {
                out.push(s);
            }
        }
        (ctx.error_count() == before).then_some(out)
    }
}
