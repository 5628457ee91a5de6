//! Wire types every part of deft shares. **No I/O lives here.**
//!
//! - [`envelope`]: the `Command` a model's tool call becomes, the `Result` that comes back
//!   ([`CommandResult`]), and [`ToolInfo`], what `list_tools` reports.
//! - [`batch`]: the JSON batch `deft exec` (and later the exec API) takes.
//! - [`event`]: the agent's event stream (docs/design.md "Events"); [`sink`]: the traits its
//!   consumers implement ([`EventSink`], [`ImageSink`]).
//! - [`task_run`]: what a task run reports of each step (`task_step_start`, `task_step`),
//!   what started it and how it ended; [`schedule`]: when a task's schedule fires and its
//!   misfire and busy policies;
//!   [`draft`]: what designer mode's `done` carries (the task draft or why there is none).
//! - [`output`]: a typed result — the checked final answer of a run with an output schema.
//! - [`memory`]: what a `memory` event says (experiences and actions recalled, saved, dropped).
//! - [`notification`]: what a console notification is about (its kind) and its level.
//! - [`link`]: device-link messages, field-compatible with UFO's AIP.
//! - [`changes`]: the change listing (new, changed, gone controls since the previous listing);
//!   [`observed`]: the controls an observation's answer showed, read back from it.
//! - [`keys`]: the key syntax of `keyboard_input`, shared by the desktop and the browser;
//!   [`clipboard`]: the arguments and answers of the clipboard tools both serve; [`marks`]: the
//!   set-of-marks boxes and ids annotated screenshots carry (desktop and phones).
//! - [`selector`]: the one control matcher (tasks, `find_controls`, dataflow); [`found`]: how
//!   `find_controls` and `wait_for_control` answer.
//!
//! Everything deserializes leniently: unknown fields are ignored and `null` is accepted wherever a
//! field is optional, so messages from UFO-shaped peers parse as they are.
//!
//! ```
//! use deft_protocol::{Command, CommandResult, ResultStatus};
//! let cmd: Command = serde_json::from_str(
//!     r#"{"tool_name":"run_shell","parameters":{"command":"uname -a"},"tool_type":"action","call_id":"c1"}"#,
//! ).unwrap();
//! let res = CommandResult::success(&cmd.call_id, serde_json::json!({"exit_code": 0}), Some("shell"));
//! assert_eq!(res.status, ResultStatus::Success);
//! assert_eq!(res.call_id, "c1");
//! ```

#![forbid(unsafe_code)]

pub mod batch;
pub mod changes;
pub mod clipboard;
pub mod draft;
pub mod envelope;
pub mod event;
pub mod found;
pub mod keys;
mod lenient;
pub mod link;
pub mod marks;
pub mod memory;
mod named;
pub mod notification;
pub mod observation;
pub mod observed;
pub mod output;
pub mod schedule;
pub mod selector;
pub mod sink;
pub mod task_run;
pub mod time;
pub mod tool_args;
pub mod webhook;

pub use batch::{ExecBatch, ExecInput};
pub use draft::{DraftIssue, DraftOutcome};
pub use envelope::{
    Command, CommandResult, ResultStatus, TIMEOUT_META_KEY, ToolInfo, ToolType, timeout_meta,
};
pub use event::{
    AgentEvent, DeltaKind, DoneStatus, EventKind, RunMode, RunStatus, StepSummary, ToolStep, Usage,
};
pub use output::{OutputError, TypedResult};
/// schemars, for the schema `named_enum!` writes in the crates that use it.
#[doc(hidden)]
pub use schemars as __schemars;
pub use sink::{EventSink, ImageSink, NullEvents, NullImages};

/// The name serde writes for a unit enum value (`ClientMessageType::Register` → `register`);
/// empty for anything that does not serialize as a string.
pub fn wire_name(value: &impl serde::Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn wire_names_are_serde_names() {
        assert_eq!(super::wire_name(&crate::DoneStatus::MaxSteps), "max_steps");
        assert_eq!(super::wire_name(&3), "");
    }
}
