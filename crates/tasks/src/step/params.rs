//! The parameters of each step type, one struct per type (docs/tasks.md "Step types"), and the
//! small enums they use.

use deft_protocol::selector::Selector;
use schemars::JsonSchema;
use serde::Serialize;

use super::Step;
use super::limits::*;

/// `open_app`: an application by name, or a URL in a browser.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(transform = crate::schema::transforms::exclusive)]
pub enum OpenApp {
    /// Start an application.
    App {
        /// A desktop-entry name (`mousepad`, `org.gnome.Calculator`, or the app's Name) or an
        /// allow-listed executable; on a phone, the app's package or label.
        #[schemars(length(min = 1, max = MAX_TEXT_CHARS))]
        app: String,
        /// Extra command-line arguments (desktop); the app starts to open them even when it has
        /// a window open.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// When the app already has windows: select the one whose title contains this (case
        /// ignored) instead of the newest.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(min = 1, max = MAX_TEXT_CHARS))]
        title: Option<String>,
        /// Start another instance even when the app already has a window open (by default its
        /// window is selected, as a phone brings a running app to the front).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        new_instance: bool,
    },
    /// Open an address in the browser.
    Url {
        /// The address, with its scheme (`https://…`, `file://…`).
        #[schemars(length(min = 1, max = MAX_TEXT_CHARS))]
        url: String,
        /// Open it in a new tab (default: the current one).
        #[serde(default)]
        new_tab: bool,
    },
}

/// `stop_app`: close an application's windows, then end its processes.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct StopApp {
    /// The application as `open_app` names it, or its root name (the executable,
    /// `gnome-calculator`).
    #[schemars(length(min = 1, max = MAX_TEXT_CHARS))]
    pub app: String,
}

/// `key_event`: press keys.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct KeyEvent {
    /// The keys, in the key syntax of `keyboard_input`: `^s` is Ctrl+S, `{ENTER}`, `%{F4}`.
    #[schemars(length(min = 1, max = MAX_TEXT_CHARS))]
    pub keys: String,
    /// The control to focus first (default: the keys go to whatever has the focus).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<Selector>,
}

/// Which way a finger moves (a swipe `up` brings what is below into view; on the desktop and
/// in the browser it is the mouse wheel turned down).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The content moves up; what is below comes into view.
    Up,
    /// The content moves down; what is above comes into view.
    Down,
    /// The content moves left; what is to the right comes into view.
    Left,
    /// The content moves right; what is to the left comes into view.
    Right,
}

impl Direction {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Left => "left",
            Direction::Right => "right",
        }
    }
}

fn default_amount() -> f64 {
    DEFAULT_SWIPE_AMOUNT
}

/// `swipe`: move the view once.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Swipe {
    /// Which way the finger moves.
    pub direction: Direction,
    /// How far, as a share of the area's height (width for left and right): 0.01–1, default
    /// 0.5.
    #[serde(default = "default_amount")]
    #[schemars(range(min = SWIPE_AMOUNT.0, max = SWIPE_AMOUNT.1))]
    pub amount: f64,
    /// The control to scroll inside (a list, a pane; default: the window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<Selector>,
}

fn default_swipes() -> u32 {
    DEFAULT_SWIPES
}

/// `swipe_until`: swipe until a control shows, a bounded number of times.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SwipeUntil {
    /// The control to bring into view.
    pub selector: Selector,
    /// Which way the finger moves.
    pub direction: Direction,
    /// How far each swipe goes (as `swipe`'s `amount`; default 0.5).
    #[serde(default = "default_amount")]
    #[schemars(range(min = SWIPE_AMOUNT.0, max = SWIPE_AMOUNT.1))]
    pub amount: f64,
    /// Most swipes before the step fails (1–100, default 10).
    #[serde(default = "default_swipes")]
    #[schemars(range(min = 1, max = MAX_SWIPES))]
    pub max_swipes: u32,
    /// The control to scroll inside (default: the window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<Selector>,
}

/// A mouse button.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    /// The primary button (the default); a tap on a touch screen.
    #[default]
    Left,
    /// The secondary button (a context menu).
    Right,
    /// The middle button.
    Middle,
}

impl MouseButton {
    /// The wire name (also `click_input`'s `button`).
    pub fn as_str(self) -> &'static str {
        match self {
            MouseButton::Left => "left",
            MouseButton::Right => "right",
            MouseButton::Middle => "middle",
        }
    }
}

/// `click`: click a control.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Click {
    /// The control.
    pub selector: Selector,
    /// `left` (default), `right` or `middle`.
    #[serde(default)]
    pub button: MouseButton,
    /// Double-click (default false).
    #[serde(default)]
    pub double: bool,
}

fn default_long_click() -> f64 {
    DEFAULT_LONG_CLICK_S
}

/// `long_click`: press a control and hold.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct LongClick {
    /// The control.
    pub selector: Selector,
    /// How long to hold, in seconds (0.1–10, default 1).
    #[serde(default = "default_long_click")]
    #[schemars(range(min = LONG_CLICK_S.0, max = LONG_CLICK_S.1))]
    pub duration_s: f64,
}

/// `wait_el`: wait for a control to show, or to be gone, for up to the step's `timeout_s`
/// (default 10 s, at most 300); the step fails when the time runs out.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct WaitEl {
    /// The control.
    pub selector: Selector,
    /// Wait until no control matches instead (default false).
    #[serde(default)]
    pub gone: bool,
}

/// How `input_text` treats the control's current text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InputMode {
    /// The control holds exactly the new text afterwards (the default).
    #[default]
    Replace,
    /// The new text goes after the current text.
    Append,
}

impl InputMode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            InputMode::Replace => "replace",
            InputMode::Append => "append",
        }
    }
}

/// `input_text`: type text into a control.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct InputText {
    /// The control (an edit, a text area, a search box).
    pub selector: Selector,
    /// The text, any Unicode, typed as it is (no key syntax); `""` with `replace` clears it.
    #[schemars(length(max = MAX_TEXT_CHARS))]
    pub text: String,
    /// `replace` (default) or `append`.
    #[serde(default)]
    pub mode: InputMode,
}

/// `clipboard`: set it, or read it into a variable.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(transform = crate::schema::transforms::exclusive)]
pub enum Clipboard {
    /// Put text on the clipboard.
    Set {
        /// The text.
        #[serde(rename = "set")]
        #[schemars(length(max = MAX_TEXT_CHARS))]
        text: String,
    },
    /// Read the clipboard's text into a variable, for `{{name}}` in later steps.
    Read {
        /// The variable's name.
        #[serde(rename = "read_into")]
        #[schemars(length(min = 1, max = MAX_VARIABLE_NAME_CHARS), regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$"))]
        into: String,
    },
}

/// `wait`: pause.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Wait {
    /// Seconds, 0–300 (fractions allowed).
    #[schemars(range(min = 0.0, max = MAX_WAIT_S))]
    pub seconds: f64,
}

fn default_loop_max() -> u32 {
    DEFAULT_LOOP_MAX
}

/// How often a `loop` runs its steps.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(transform = crate::schema::transforms::exclusive)]
pub enum Repeat {
    /// A fixed number of times.
    Times {
        /// 1–1000.
        #[schemars(range(min = 1, max = MAX_LOOP))]
        times: u32,
    },
    /// While a control shows (checked before each round; none at all if it does not show).
    While {
        /// The control.
        #[serde(rename = "while")]
        selector: Selector,
        /// Most rounds (1–1000, default 100); the loop fails if the control still shows then.
        #[serde(default = "default_loop_max")]
        #[schemars(range(min = 1, max = MAX_LOOP))]
        max: u32,
    },
    /// Until a control shows (checked before each round).
    Until {
        /// The control.
        #[serde(rename = "until")]
        selector: Selector,
        /// Most rounds (1–1000, default 100); the loop fails if the control has not shown then.
        #[serde(default = "default_loop_max")]
        #[schemars(range(min = 1, max = MAX_LOOP))]
        max: u32,
    },
}

/// `loop`: repeat sub-steps.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Loop {
    /// `times`, or `while` / `until` with `max`.
    #[serde(flatten)]
    pub repeat: Repeat,
    /// The steps of each round.
    pub steps: Vec<Step>,
}

/// `group`: named sub-steps (the run history shows them under the name).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Group {
    /// The group's name (1–200 characters).
    #[schemars(length(min = 1, max = MAX_NAME_CHARS))]
    pub name: String,
    /// Its steps.
    pub steps: Vec<Step>,
}

/// `if_el`: run `then` if a control shows (or, with `gone`, does not), else `else`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct IfEl {
    /// The control.
    pub selector: Selector,
    /// Take `then` when no control matches instead (default false).
    #[serde(default)]
    pub gone: bool,
    /// How long to wait for the condition to hold before taking `else`, in seconds (0–300,
    /// default 0: look once).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = MAX_WAIT_S))]
    pub wait_s: f64,
    /// The steps when the condition holds.
    pub then: Vec<Step>,
    /// The steps when it does not (default none).
    #[serde(rename = "else", default, skip_serializing_if = "Vec::is_empty")]
    pub otherwise: Vec<Step>,
}

/// `click_xy`: click a point of the window (tasks only).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ClickXy {
    /// From the window's left edge, as a fraction of its width (0–1).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub x: f64,
    /// From the window's top edge, as a fraction of its height (0–1).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub y: f64,
    /// `left` (default), `right` or `middle`.
    #[serde(default)]
    pub button: MouseButton,
    /// Double-click (default false).
    #[serde(default)]
    pub double: bool,
}

/// A point of the window, as fractions of its width and height.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// From the left edge (0–1).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub x: f64,
    /// From the top edge (0–1).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub y: f64,
}

fn default_gesture() -> f64 {
    DEFAULT_GESTURE_S
}

/// `gesture`: press at the first point, move through the others, release at the last (tasks
/// only).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Gesture {
    /// 2–50 points.
    #[schemars(length(min = 2, max = MAX_GESTURE_POINTS))]
    pub points: Vec<Point>,
    /// How long the whole movement takes, in seconds (0.05–10, default 0.5).
    #[serde(default = "default_gesture")]
    #[schemars(range(min = GESTURE_S.0, max = GESTURE_S.1))]
    pub duration_s: f64,
}

/// `keep_screen`: keep the screen awake for the rest of the run, or let it sleep again (tasks
/// only).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct KeepScreen {
    /// `true` keeps it awake, `false` lets it sleep.
    pub on: bool,
}

/// How a notification is shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NotifyLevel {
    /// For information (the default).
    #[default]
    Info,
    /// Something a person should look at.
    Warning,
    /// Something went wrong.
    Error,
}

impl NotifyLevel {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            NotifyLevel::Info => "info",
            NotifyLevel::Warning => "warning",
            NotifyLevel::Error => "error",
        }
    }
}

/// `notify`: a notification in the console (tasks only).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Notify {
    /// What it says (1–10,000 characters).
    #[schemars(length(min = 1, max = MAX_TEXT_CHARS))]
    pub message: String,
    /// `info` (default), `warning` or `error`.
    #[serde(default)]
    pub level: NotifyLevel,
}

/// `stop_self` and `mark_done`: end the run here (tasks only); the steps after it do not run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct Finish {
    /// Why, for the run history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = MAX_TEXT_CHARS))]
    pub message: Option<String>,
}

/// Where a `for_each` takes its rounds from: exactly one source.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(transform = crate::schema::transforms::exclusive)]
pub enum Source {
    /// The items written in the step: strings, or objects whose fields are read as
    /// `{{item.field}}`.
    Items {
        /// 0–1,000 items.
        #[schemars(length(max = MAX_ROUNDS))]
        items: Vec<Item>,
    },
    /// A variable holding a JSON array (of strings or objects) or one item per line.
    Variable {
        /// The variable's name (declared, given by the run request, or read by a `clipboard`
        /// step before).
        #[schemars(length(min = 1, max = MAX_VARIABLE_NAME_CHARS), regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$"))]
        variable: String,
    },
    /// A CSV file on the machine that runs the task, inside its allowed folders: the first row
    /// is the header, each other row one round, its columns read as `{{row.Header}}`.
    Csv {
        /// The file's absolute path (`{{name}}` expands).
        #[schemars(length(min = 1, max = MAX_TEXT_CHARS))]
        csv: String,
    },
}

/// One item of a `for_each` list.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(transform = crate::schema::transforms::item_fields)]
pub enum Item {
    /// A text: `{{item}}`.
    Text(String),
    /// Named fields: `{{item.name}}` (numbers and booleans are read as their text).
    Fields(std::collections::BTreeMap<String, String>),
}

fn default_round_name() -> String {
    DEFAULT_ROUND_NAME.to_owned()
}

/// `for_each`: run sub-steps once per item, the item in a variable (tasks only).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ForEach {
    /// `items`, `variable` or `csv`.
    #[serde(flatten)]
    pub source: Source,
    /// The name each round's item goes by (default `item`): `{{item}}`, `{{item.field}}`.
    #[serde(rename = "as", default = "default_round_name")]
    #[schemars(length(min = 1, max = MAX_VARIABLE_NAME_CHARS), regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$"))]
    pub name: String,
    /// The steps of each round.
    pub steps: Vec<Step>,
}
