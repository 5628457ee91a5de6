//! The validator: the one function the API, the CLI, designer mode and the action library
//! call. It walks the raw JSON itself, so every problem comes back at once with its path
//! (`steps[3].then[0].selector: click needs a selector: …`), not the first one serde meets;
//! then it builds the typed [`Task`]. Warnings flag what is valid but suspect. Library mode
//! admits only the action library's sixteen types.
//!
//! ```
//! use deft_tasks::validate::{validate_task, Options};
//! let v = validate_task(r#"{"name": "t", "steps": [{"type": "wiat", "seconds": 1}]}"#, &Options::default());
//! assert!(v.value.is_none());
//! let e = &v.report.errors[0];
//! assert_eq!(e.path, "steps[0].type");
//! assert!(e.message.starts_with(r#"unknown step type "wiat"; did you mean "wait"?"#));
//! ```
//!
//! One concern per module: `input` (size cap, malformed JSON), `task` (the task's fields),
//! `step` (a step and a step list: type, common fields, nesting), `actions` and `flow` (each
//! type's parameters), `selector`, `fields` (reading an object field by field), `content`
//! (variables in scope, selectors, keys and URLs after expansion), `scope` (the variables in
//! scope as the walk goes), `variables` (their checks), `lints` and `device` (warnings),
//! `report` (the answer).

mod actions;
mod content;
mod ctx;
mod device;
mod fields;
mod flow;
mod input;
mod lints;
mod report;
mod scope;
mod selector;
mod step;
mod suggest;
mod task;
mod variables;

use serde::{Deserialize, Deserializer};

pub use ctx::MAX_ISSUES;
pub use device::{DeviceKind, cannot, unsupported_types};
pub use input::Input;
pub use report::{Issue, Report, Validation};

use crate::step::{Step, StepType, Task};

/// Which steps are admitted.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A task: every type.
    #[default]
    Task,
    /// The action library: the sixteen library types, no coordinates, no flow markers.
    Library,
}

/// How to validate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Task or library.
    pub mode: Mode,
    /// The kind of device the task will run on, for the device warnings; `None`: the kind
    /// its `device` implies ([`DeviceKind::of_device`]), and no device warnings without one.
    pub device: Option<DeviceKind>,
    /// Variables the run request gives values to (a task may use them without declaring
    /// them).
    pub provided: Vec<String>,
}

impl Options {
    /// Library mode.
    pub fn library() -> Self {
        Options {
            mode: Mode::Library,
            ..Options::default()
        }
    }
}

/// Validates a task file (bytes, a string or a JSON value): every error and warning, and the
/// typed task when there are no errors.
pub fn validate_task<'a>(input: impl Into<Input<'a>>, opts: &Options) -> Validation<Task> {
    let mut ctx = ctx::Ctx::new(opts);
    let value = match input::load(input.into()) {
        Ok(v) => task::task(&mut ctx, &v),
        Err(issue) => {
            ctx.push_error(issue);
            None
        }
    };
    finish(ctx, value)
}

/// Validates a list of steps on their own (the action library's steps, a designer's
/// fragment); paths start at `steps[0]`.
pub fn validate_steps<'a>(input: impl Into<Input<'a>>, opts: &Options) -> Validation<Vec<Step>> {
    let mut ctx = ctx::Ctx::new(opts);
    let value = match input::load(input.into()) {
        Ok(v) => {
            let steps = task::steps(&mut ctx, &v);
            variables::warn_unused(&mut ctx);
            steps
        }
        Err(issue) => {
            ctx.push_error(issue);
            None
        }
    };
    finish(ctx, value)
}

fn finish<T>(ctx: ctx::Ctx<'_>, value: Option<T>) -> Validation<T> {
    let report = ctx.finish();
    Validation {
        value: value.filter(|_| report.is_valid()),
        report,
    }
}

/// The fields a step type takes: its own parameters, then `timeout_s`, `on_error` and
/// `note` (from the validator's own reads, so the list cannot drift from what it accepts).
pub fn fields_of(kind: StepType) -> Vec<&'static str> {
    step::fields_of(kind)
}

impl<'de> Deserialize<'de> for Task {
    /// Through the validator (task mode, no device): a task deserialized is a valid task; the
    /// error lists every problem.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        validate_task(&v, &Options::default())
            .into_result()
            .map(|(task, _)| task)
            .map_err(|report| {
                serde::de::Error::custom(
                    report
                        .errors
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; "),
                )
            })
    }
}
