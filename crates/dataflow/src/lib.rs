//! deft's dataflow (seed 004): collect Large-Action-Model data by running document tasks in bulk
//! on real apps. A task (`{app, unique_id, task, refined_steps}`) is **instantiated** — the model
//! chooses a template document, the copy is opened on a device and the model turns the task into
//! a concrete request and a step plan from the window's controls and screenshot, then judges it
//! doable — **executed** step by step on the real app (controls found by the one matcher, tools run
//! through the Dispatcher), and **evaluated** by the model; each task's result is checked against
//! the shipped JSON Schema and filed into pass / fail / unsure folders with per-stage times, and
//! passed tasks are reshaped into a batch dataset.
//!
//! ```text
//! Pipeline::run(files, devices)          pipeline.rs   one worker per device, skip / resume, reformat
//!   read_task                            task.rs       task files, the execution mode's result files
//!   stages::template → prefill → judge   stages/       instantiation (the model, the device)
//!   stages::execute → evaluate           stages/       execution
//!     DocSession                         device.rs     every app call through the device's Dispatcher
//!     Model::ask                         model.rs      one chat call, a JSON object read tolerantly
//!   Schemas::check, folders::save        schema.rs, folders.rs   warn with paths, save anyway
//! ```
//!
//! The pipeline never touches an app except through a device's Dispatcher, and never matches
//! controls itself: `find_controls` on the device answers (`deft_protocol::selector`).

#![forbid(unsafe_code)]

pub mod config;
pub mod device;
pub mod folders;
pub mod log;
pub mod model;
pub mod pipeline;
pub mod reformat;
pub mod result;
pub mod schema;
pub mod stages;
pub mod task;
pub mod texts;

pub use config::{AppSpec, Config, Mode};
pub use folders::{Bucket, Verdict};
pub use model::Model;
pub use pipeline::{Observer, Pipeline, Quiet, RunSummary, TaskOutcome, TaskStatus};
pub use result::ResultDoc;
pub use schema::{Schemas, Violation};
