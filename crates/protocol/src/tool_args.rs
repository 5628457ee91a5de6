//! Arguments of the window and control tools the desktop and the browser share (names and
//! parameters follow UFO's): one schema for the model whatever the device.
//! Lenient like the rest of this crate: ids may come as numbers, `null` means the default.
//!
//! ```
//! use deft_protocol::tool_args::ClickArgs;
//! let a: ClickArgs = serde_json::from_value(serde_json::json!({"id": 7, "name": "OK"})).unwrap();
//! assert_eq!(a.target.id, "7");
//! assert_eq!(a.target.name.as_deref(), Some("OK"));
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::observation::ListingOptions;

/// Longest `wait`, in seconds.
pub const MAX_WAIT_SECS: f64 = 300.0;

/// The time limit a `wait` tool declares: its longest wait with room to answer.
pub const WAIT_TOOL_LIMIT_SECS: u64 = MAX_WAIT_SECS as u64 + 10;

/// An id given as a string or a number, trimmed; `null` or absent is `""` (the tool says an id
/// is needed where it is).
fn lenient_id<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => {
            return Err(serde::de::Error::custom(format!(
                "id must be a string such as \"7\", not {other}"
            )));
        }
    })
}

/// A control (or window) by `id`, with its `name` as a check.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct Target {
    /// The id from the latest listing (a string like "7"; the number 7 is accepted).
    #[serde(default, deserialize_with = "lenient_id")]
    #[schemars(with = "String")]
    pub id: String,
    /// The name shown with the id; a check: on a mismatch the action still runs on the id and
    /// returns a warning.
    #[serde(default)]
    pub name: Option<String>,
}

/// `get_desktop_app_info`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct AppInfoArgs {
    /// Leave out windows (tabs) with an empty title (default true).
    #[serde(default)]
    pub remove_empty: Option<bool>,
    /// Enumerate again (default true); false returns the previous list.
    #[serde(default)]
    pub refresh_app_windows: Option<bool>,
}

/// `changes` and `subtree` together: the change listing compares whole windows.
pub const CHANGES_WITH_SUBTREE: &str = "Invalid arguments: changes compares the whole window with its previous listing; leave out subtree, or list the subtree without changes.";

/// `get_app_window_controls_info` (docs/observation.md "Tools"); [`ListingArgs::options`]
/// parses it leniently.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct ListingArgs {
    /// Optional fields to add, a list or one comma-separated string: rect, text, description,
    /// role, and in a browser also class, url, placeholder, shortcut, level (UFO's control_rect
    /// works too).
    #[serde(default)]
    #[schemars(with = "Option<Vec<String>>")]
    pub field_list: Option<Value>,
    /// List interactive controls only (default false).
    #[serde(default)]
    pub only_interactive: Option<bool>,
    /// Most control lines to print (default 1000).
    #[serde(default)]
    pub max_controls: Option<usize>,
    /// "compact" (default) or "json".
    #[serde(default)]
    pub format: Option<String>,
    /// A control id from an earlier listing of this window: list only that control and its
    /// descendants (a form, a table, a list, a dialog pane); the header counts that subtree.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub subtree: Option<Value>,
    /// List only what changed since this window's previous listing: new (*), changed (~) and
    /// gone (-) controls, the unchanged counted in the header (default false). Cheap after an
    /// action whose effect is "changed".
    #[serde(default)]
    pub changes: Option<bool>,
}

impl ListingArgs {
    /// The listing options these arguments ask for; the error says which argument is wrong.
    pub fn options(&self) -> Result<ListingOptions, String> {
        let opts: ListingOptions = serde_json::to_value(self)
            .and_then(serde_json::from_value)
            .map_err(|e| format!("Invalid arguments: {e}"))?;
        if opts.changes && opts.subtree.is_some() {
            return Err(CHANGES_WITH_SUBTREE.to_owned());
        }
        Ok(opts)
    }
}

/// `capture_window_screenshot`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ScreenshotArgs {
    /// Draw each listed interactive control's box and id (set-of-marks).
    #[serde(default)]
    pub annotated: Option<bool>,
}

/// `click_input`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ClickArgs {
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub target: Target,
    /// "left" (default), "right" or "middle".
    #[serde(default)]
    pub button: Option<String>,
    /// Double-click.
    #[serde(default)]
    pub double: Option<bool>,
    /// Press and hold this many seconds before releasing (a long press), 0.05–10; not with
    /// `double`. Default: an ordinary click.
    #[serde(default)]
    pub hold_s: Option<f64>,
}

/// The longest `click_input` hold (`hold_s`), in seconds.
pub const MAX_HOLD_SECS: f64 = 10.0;

/// The shortest `click_input` hold (`hold_s`), in seconds.
pub const MIN_HOLD_SECS: f64 = 0.05;

impl ClickArgs {
    /// How long to hold the button down, when asked: `hold_s` checked against its range and
    /// against `double`.
    pub fn hold(&self) -> Result<Option<std::time::Duration>, String> {
        let Some(secs) = self.hold_s else {
            return Ok(None);
        };
        if secs.is_nan() || !(MIN_HOLD_SECS..=MAX_HOLD_SECS).contains(&secs) {
            return Err(format!(
                "hold_s must be between {MIN_HOLD_SECS} and {MAX_HOLD_SECS} seconds, got {secs}."
            ));
        }
        if self.double.unwrap_or(false) {
            return Err(
                "hold_s is a long press and double a double-click: give one of them.".to_owned(),
            );
        }
        Ok(Some(std::time::Duration::from_secs_f64(secs)))
    }
}

/// `click_on_coordinates`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CoordArgs {
    /// Horizontal position as a fraction of the selected window's width (a page's viewport in
    /// a browser), 0.0–1.0.
    pub x: f64,
    /// Vertical position as a fraction of its height, 0.0–1.0.
    pub y: f64,
    /// "left" (default), "right" or "middle".
    #[serde(default)]
    pub button: Option<String>,
    /// Double-click.
    #[serde(default)]
    pub double: Option<bool>,
}

/// `drag_on_coordinates`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DragArgs {
    /// Start, fraction of the window's width.
    pub start_x: f64,
    /// Start, fraction of the window's height.
    pub start_y: f64,
    /// End, fraction of the window's width.
    pub end_x: f64,
    /// End, fraction of the window's height.
    pub end_y: f64,
    /// "left" (default), "right" or "middle".
    #[serde(default)]
    pub button: Option<String>,
    /// A modifier held during the drag: "ctrl", "shift" or "alt".
    #[serde(default)]
    pub key_hold: Option<String>,
}

impl DragArgs {
    /// The modifier `key_hold` names, if any; the error says what is accepted.
    pub fn held(&self) -> Result<Option<crate::keys::Modifier>, String> {
        use crate::keys::Modifier;
        match self
            .key_hold
            .as_deref()
            .map(|k| k.trim().to_ascii_lowercase())
        {
            None => Ok(None),
            Some(k) => match k.as_str() {
                "" => Ok(None),
                "ctrl" | "control" => Ok(Some(Modifier::Ctrl)),
                "shift" => Ok(Some(Modifier::Shift)),
                "alt" => Ok(Some(Modifier::Alt)),
                _ => Err(format!(
                    "Unknown key_hold {k:?}: use \"ctrl\", \"shift\" or \"alt\"."
                )),
            },
        }
    }
}

/// `set_edit_text`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SetTextArgs {
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub target: Target,
    /// The text the control should hold (any Unicode).
    pub text: String,
    /// Replace the current text (default true); false appends.
    #[serde(default)]
    pub clear_current_text: Option<bool>,
}

/// `keyboard_input`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct KeysArgs {
    /// The control to focus first (optional with control_focus=false).
    #[serde(default, deserialize_with = "lenient_id")]
    #[schemars(with = "Option<String>")]
    pub id: String,
    /// The control's name, as a check.
    #[serde(default)]
    pub name: Option<String>,
    /// The keys to press.
    #[schemars(description = concat!("Keys to press. ", crate::key_syntax!()))]
    pub keys: String,
    /// Focus the control first (default true).
    #[serde(default)]
    pub control_focus: Option<bool>,
}

/// `wheel_mouse_input`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct WheelArgs {
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub target: Target,
    /// Notches to turn; positive scrolls up, negative down (UFO's convention).
    pub wheel_dist: i32,
}

/// `select_option`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SelectOptionArgs {
    #[serde(flatten)]
    #[allow(missing_docs)]
    pub target: Target,
    /// The option's visible text (or, in a browser, its value).
    pub option: String,
}

/// `wait`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct WaitArgs {
    /// Seconds to wait, 0–300.
    pub seconds: f64,
}

impl WaitArgs {
    /// The wait, if within 0–[`MAX_WAIT_SECS`]; the error says the range.
    pub fn duration(&self) -> Result<std::time::Duration, String> {
        if self.seconds.is_nan() || !(0.0..=MAX_WAIT_SECS).contains(&self.seconds) {
            return Err(format!(
                "seconds must be between 0 and {MAX_WAIT_SECS}, got {}.",
                self.seconds
            ));
        }
        Ok(std::time::Duration::from_secs_f64(self.seconds))
    }
}

/// Most matches `find_controls` lists unless asked (`limit`).
pub const DEFAULT_FIND_LIMIT: usize = 10;

/// Most matches `find_controls` lists at all.
pub const MAX_FIND_LIMIT: usize = 100;

/// `wait_for_control`'s wait unless asked (`timeout_s`), in seconds.
pub const DEFAULT_WAIT_FOR_SECS: f64 = 10.0;

/// `find_controls` (docs/observation.md "Finding controls").
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct FindControlsArgs {
    /// Which controls: `{"text"?, "type"?, "match"?: "exact"|"contains"|"fuzzy"|"regex",
    /// "index"?, "within"?}`.
    pub selector: crate::selector::Selector,
    /// Most matches to list, best first (default 10, at most 100).
    #[serde(default)]
    pub limit: Option<usize>,
    /// "compact" (default) or "json".
    #[serde(default)]
    pub format: Option<String>,
}

impl FindControlsArgs {
    /// The limit, if within 1–[`MAX_FIND_LIMIT`]; the error says the range.
    pub fn limit(&self) -> Result<usize, String> {
        match self.limit {
            None => Ok(DEFAULT_FIND_LIMIT),
            Some(n) if (1..=MAX_FIND_LIMIT).contains(&n) => Ok(n),
            Some(n) => Err(format!(
                "limit must be between 1 and {MAX_FIND_LIMIT}, got {n}."
            )),
        }
    }

    /// The output format; the error names the accepted ones.
    pub fn format(&self) -> Result<crate::observation::ListingFormat, String> {
        let opts: ListingOptions =
            serde_json::from_value(serde_json::json!({"format": self.format}))
                .map_err(|e| e.to_string())?;
        Ok(opts.format)
    }
}

/// `wait_for_control`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct WaitForControlArgs {
    /// The control to wait for, as `find_controls` takes it.
    pub selector: crate::selector::Selector,
    /// Longest wait in seconds (default 10, at most 300).
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Wait for no control to match instead (default false).
    #[serde(default)]
    pub gone: Option<bool>,
}

impl WaitForControlArgs {
    /// The wait, if within 0–[`MAX_WAIT_SECS`]; the error says the range.
    pub fn timeout(&self) -> Result<std::time::Duration, String> {
        let secs = self.timeout_s.unwrap_or(DEFAULT_WAIT_FOR_SECS);
        if secs.is_nan() || !(0.0..=MAX_WAIT_SECS).contains(&secs) {
            return Err(format!(
                "timeout_s must be between 0 and {MAX_WAIT_SECS}, got {secs}."
            ));
        }
        Ok(std::time::Duration::from_secs_f64(secs))
    }
}

/// Most characters `set_clipboard` takes.
pub const MAX_CLIPBOARD_CHARS: usize = 100_000;

/// `set_clipboard`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ClipboardArgs {
    /// The text to put on the clipboard: any Unicode, at most 100,000 characters; an empty
    /// text empties it.
    pub text: String,
}

impl ClipboardArgs {
    /// The text, if within [`MAX_CLIPBOARD_CHARS`]; the error says the limit.
    pub fn checked_text(&self) -> Result<&str, String> {
        let n = self.text.chars().count();
        if n > MAX_CLIPBOARD_CHARS {
            return Err(format!(
                "text is {n} characters; set_clipboard takes at most {MAX_CLIPBOARD_CHARS}."
            ));
        }
        Ok(&self.text)
    }
}

/// `summary`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SummaryArgs {
    /// The summary to pass on.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_lenient_and_bad_ones_say_so() {
        let t: Target = serde_json::from_value(json!({"id": " 12 "})).unwrap();
        assert_eq!(t.id, "12");
        let t: Target = serde_json::from_value(json!({"id": null})).unwrap();
        assert_eq!(t.id, "");
        let e = serde_json::from_value::<Target>(json!({"id": [1]})).unwrap_err();
        assert!(
            e.to_string().contains("id must be a string such as \"7\""),
            "{e}"
        );
    }

    #[test]
    fn listing_options_parse_leniently() {
        let a: ListingArgs =
            serde_json::from_value(json!({"field_list": "rect, text", "subtree": 4})).unwrap();
        let o = a.options().unwrap();
        assert_eq!(o.fields(), ["rect", "text"]);
        assert_eq!(o.subtree.as_deref(), Some("4"));
        let a: ListingArgs = serde_json::from_value(json!({"format": "yaml"})).unwrap();
        assert!(a.options().unwrap_err().starts_with("Invalid arguments: "));
    }

    #[test]
    fn key_hold_and_wait_ranges() {
        let d = |k: &str| -> DragArgs {
            serde_json::from_value(
                json!({"start_x": 0, "start_y": 0, "end_x": 1, "end_y": 1, "key_hold": k}),
            )
            .unwrap()
        };
        assert_eq!(d("Ctrl").held().unwrap(), Some(crate::keys::Modifier::Ctrl));
        assert_eq!(d("").held().unwrap(), None);
        assert!(
            d("meta")
                .held()
                .unwrap_err()
                .contains("\"ctrl\", \"shift\" or \"alt\"")
        );
        let w = |s: f64| WaitArgs { seconds: s };
        assert_eq!(w(1.5).duration().unwrap().as_millis(), 1500);
        assert!(w(301.0).duration().is_err());
        assert!(w(-1.0).duration().is_err());
        assert!(w(f64::NAN).duration().is_err());
    }

    #[test]
    fn a_hold_is_in_range_and_not_a_double_click() {
        let c = |v: serde_json::Value| -> ClickArgs { serde_json::from_value(v).unwrap() };
        assert_eq!(c(json!({"id": "3"})).hold().unwrap(), None);
        assert_eq!(
            c(json!({"id": "3", "hold_s": 1.5})).hold().unwrap(),
            Some(std::time::Duration::from_millis(1500))
        );
        assert_eq!(
            c(json!({"id": "3", "hold_s": 11})).hold().unwrap_err(),
            "hold_s must be between 0.05 and 10 seconds, got 11."
        );
        assert!(c(json!({"id": "3", "hold_s": 0.01})).hold().is_err());
        assert_eq!(
            c(json!({"id": "3", "hold_s": 1, "double": true}))
                .hold()
                .unwrap_err(),
            "hold_s is a long press and double a double-click: give one of them."
        );
    }
}
