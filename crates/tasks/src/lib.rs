//! Tasks (docs/tasks.md): step lists a person or the AI writes once and deft runs without a
//! model, on a chosen device, now or on a schedule.
//!
//! The parts, each its own module:
//! - the step language (the types a task file deserializes into) and `{{variable}}` expansion;
//! - redaction: a run's secret values hidden from everything it records;
//! - the validator, the one function the API, the CLI, designer mode and the action library
//!   call, with every error at its path, and the JSON Schema generated from the same types;
//! - the runner, which plays a task through the Dispatcher and the device's own tools, never a
//!   backend directly;
//! - the structural diff of two versions of a task (fields, and steps added, removed,
//!   changed or moved);
//! - schedules: cron with a time zone, intervals, once; their next fire times and how they
//!   read. The timer that fires them (and claims each fire in the store) is deft-app's.

#![forbid(unsafe_code)]

pub mod diff;
pub mod redact;
pub mod runner;
pub mod schedule;
pub mod schema;
pub mod step;
pub mod texts;
pub mod validate;
pub mod vars;

pub use step::{Action, Step, StepType, Task};
pub use validate::{Options, Report, Validation, validate_steps, validate_task};
