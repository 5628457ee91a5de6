//! The language's limits (docs/tasks.md "Limits"); the validator refuses anything past them.

/// Largest task file, in bytes, refused before it is parsed.
pub const MAX_FILE_BYTES: usize = 1 << 20;
/// Most steps in a task, nested ones counted.
pub const MAX_STEPS: usize = 500;
/// Most `group` / `loop` / `if_el` steps inside each other.
pub const MAX_DEPTH: usize = 8;
/// Longest `wait`, `wait_el` and `if_el` wait, in seconds (the `wait` tool's limit).
pub const MAX_WAIT_S: f64 = deft_protocol::tool_args::MAX_WAIT_SECS;
/// `wait_el`'s wait unless the step's `timeout_s` says (the `wait_for_control` default).
pub const DEFAULT_WAIT_EL_S: f64 = deft_protocol::tool_args::DEFAULT_WAIT_FOR_SECS;
/// Most iterations of a `loop` (`times`, and the cap `max` of `while` / `until`).
pub const MAX_LOOP: u32 = 1000;
/// A `while` / `until` loop's cap unless `max` says.
pub const DEFAULT_LOOP_MAX: u32 = 100;
/// Most swipes of a `swipe_until`.
pub const MAX_SWIPES: u32 = 100;
/// `swipe_until`'s swipes unless `max_swipes` says.
pub const DEFAULT_SWIPES: u32 = 10;
/// Longest step `timeout_s`, in seconds.
pub const MAX_STEP_TIMEOUT_S: f64 = 3600.0;
/// Longest task `timeout_s`, in seconds.
pub const MAX_TASK_TIMEOUT_S: f64 = 86_400.0;
/// A task's `timeout_s` unless it says.
pub const DEFAULT_TASK_TIMEOUT_S: f64 = 3600.0;
/// Longest task, group or device name, in characters.
pub const MAX_NAME_CHARS: usize = 200;
/// Longest step note, in characters.
pub const MAX_NOTE_CHARS: usize = 1000;
/// Longest text parameter (text to type, a variable's value, a URL…), in characters.
pub const MAX_TEXT_CHARS: usize = 10_000;
/// Most variables a task declares.
pub const MAX_VARIABLES: usize = 100;
/// Longest variable name, in characters.
pub const MAX_VARIABLE_NAME_CHARS: usize = 64;
/// Most points of a `gesture`.
pub const MAX_GESTURE_POINTS: usize = 50;
/// Shortest and longest `swipe` amount (a share of the area).
pub const SWIPE_AMOUNT: (f64, f64) = (0.01, 1.0);
/// A swipe's amount unless it says.
pub const DEFAULT_SWIPE_AMOUNT: f64 = 0.5;
/// Shortest and longest `long_click` hold, in seconds.
pub const LONG_CLICK_S: (f64, f64) = (0.1, 10.0);
/// A long click's hold unless it says, in seconds.
pub const DEFAULT_LONG_CLICK_S: f64 = 1.0;
/// Shortest and longest `gesture`, in seconds.
pub const GESTURE_S: (f64, f64) = (0.05, 10.0);
/// A gesture's duration unless it says, in seconds.
pub const DEFAULT_GESTURE_S: f64 = 0.5;
/// Most retries of a step (`retry.times`): a step runs at most this many times more.
pub const MAX_RETRIES: u32 = 10;
/// Longest pause before a retry (`retry.delay_s`), in seconds.
pub const MAX_RETRY_DELAY_S: f64 = 600.0;
/// Largest factor the pause grows by after each retry (`retry.backoff`; 1 keeps it).
pub const MAX_RETRY_BACKOFF: f64 = 10.0;
/// Most rounds of a `for_each` (as a `loop`'s): items, lines of a variable or rows of a CSV file.
pub const MAX_ROUNDS: usize = MAX_LOOP as usize;
/// Largest CSV file a `for_each` reads, in bytes.
pub const MAX_CSV_BYTES: u64 = 10 << 20;
/// `for_each`'s round variable unless `as` names one.
pub const DEFAULT_ROUND_NAME: &str = "item";
