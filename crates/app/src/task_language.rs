//! The task language as the front ends see it: the validator and its report, the device kinds
//! it checks against, schedule specs and how they read in words, the limits of a task file,
//! and what changed between two versions of a task.
//! Re-exported from deft-tasks, so a front end checks and renders task files through the
//! application and never reaches the runner.

pub use deft_tasks::diff::{FieldChange, Side, StepChange, StepChangeKind, TaskDiff, diff};
pub use deft_tasks::schedule::{ScheduleSpec, describe};
pub use deft_tasks::step::limits::MAX_FILE_BYTES;
pub use deft_tasks::texts::too_large;
pub use deft_tasks::validate::{DeviceKind, Issue, Mode, Options, Report};
pub use deft_tasks::validate_task;
pub use deft_tasks::vars::{MAX_SECRET_NAME_CHARS, is_secret_name, secret_names_in};
