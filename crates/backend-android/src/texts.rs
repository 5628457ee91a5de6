//! What the Android backend says to a model or a person: each text once, tested verbatim.

/// A dump that is not XML at all.
pub fn dump_unreadable(detail: &str) -> String {
    format!("the phone's screen dump is not readable XML ({detail}); take the screen again")
}

/// A dump that is XML but holds no view.
pub const DUMP_EMPTY: &str = "the phone's screen dump holds no view (the screen may be off or locked); wake it and take the screen again";

/// What `uiautomator` printed instead of a dump.
pub fn dump_failed(said: &str) -> String {
    format!("uiautomator could not dump the screen: {said}")
}

/// A command the phone refused.
pub fn refused(command: &str, said: &str) -> String {
    format!("the phone refused `{command}`: {said}")
}

/// Text `input text` cannot type, on a phone without ADBKeyBoard.
pub fn no_input_method(text: &str) -> String {
    format!(
        "cannot type {text:?}: adb's `input text` types printable ASCII only, and other text needs the ADBKeyBoard input method on the phone (install ADBKeyboard.apk with `adb install`; deft selects it while it types and puts the phone's keyboard back after). Nothing was typed."
    )
}

/// An app that is not installed.
pub fn no_such_app(package: &str) -> String {
    format!(
        "no app with a launcher activity has the package {package:?} on this phone; list_apps lists the installed packages"
    )
}

/// The server's name in the MCP handshake.
pub const SERVER_NAME: &str = "deft-android";

/// What the server tells a client about itself.
pub const INSTRUCTIONS: &str = "deft's Android tools: one phone through the adb server. The screen is the foreground app's window (a dialog over it is its own window); get_app_window_controls_info lists its controls with ids, the action tools take those ids, and every action answers with its effect (the screen read again after it). Reading the screen costs 0.5-3 s on a real phone: list once, act, and read the action's answer.";

/// A control id that is not a number.
pub fn bad_control_id(given: &str) -> String {
    if given.trim().is_empty() {
        return "No control id given: pass an id from the latest get_app_window_controls_info or find_controls.".to_owned();
    }
    format!(
        "'{given}' is not a control id: ids are decimal numbers like \"7\", as get_app_window_controls_info prints them."
    )
}

/// A window id that no list gave out.
pub fn unknown_window(given: &str) -> String {
    format!(
        "Window id '{given}' is not a window of this phone. Call get_desktop_app_info for the foreground app's window and a dialog over it."
    )
}

/// The name given with a control id differs from the control's name.
pub fn control_name_warning(id: &str, given: &str, real: &str, kind: &str) -> String {
    format!(
        "Warning: control {id} is the {kind} \"{real}\", not \"{given}\"; the action was done on control {id} by its id."
    )
}

/// A control id given out before that is no longer on the screen.
pub fn stale_control(id: &str) -> String {
    format!(
        "Control {id} is no longer on the phone's screen: it scrolled away, or the screen changed. Read the screen again with get_app_window_controls_info and use the new id."
    )
}

/// A control id never given out.
pub fn unknown_control(id: &str, range: Option<(u64, u64)>) -> String {
    let known = match range {
        Some((lo, hi)) => format!("the screen read last has ids {lo} to {hi}"),
        None => "the screen read last has no controls".to_owned(),
    };
    format!(
        "Control id '{id}' is unknown ({known}). Call get_app_window_controls_info and use an id from it."
    )
}

/// set_edit_text on a control that takes no text.
pub fn not_editable(id: &str, name: &str, kind: &str) -> String {
    format!(
        "Control {id} (\"{name}\") is a {kind}, not a text field: set_edit_text types into edit controls. Tap it with click_input, or pick the edit control."
    )
}

/// A control that is disabled.
pub fn control_disabled(id: &str, name: &str) -> String {
    format!(
        "Control {id} (\"{name}\") is disabled, so tapping it does nothing. Complete what enables it first, or pick another control."
    )
}

/// A control with no area on the screen.
pub fn control_offscreen(id: &str, name: &str) -> String {
    format!(
        "Control {id} (\"{name}\") has no area on the screen (clipped at a list's edge), so it cannot be tapped. Scroll it into view with wheel_mouse_input on its list, then read the screen again."
    )
}

/// A mouse button a phone does not have.
pub fn no_such_button(button: &str) -> String {
    format!(
        "A phone has no {button} button: click_input taps (button \"left\", the default); a long press is hold_s."
    )
}

/// A coordinate outside 0..1.
pub fn bad_fraction(name: &str, v: f64) -> String {
    format!("{name} must be a fraction of the screen between 0 and 1, got {v}.")
}

/// A typed value that did not hold.
pub fn value_differs(id: &str, wanted: &str, now: &str) -> String {
    format!(
        "Warning: control {id} shows {now:?} after typing, not {wanted:?} (the app may format or limit what is typed). Read it with get_app_window_controls_info before relying on it."
    )
}

/// A key a phone has no key event for.
pub fn no_phone_key(key: &str) -> String {
    format!(
        "A phone has no key for {key}: keyboard_input takes text, named keys such as {{ENTER}} {{BACKSPACE}} {{TAB}} {{UP}}, the buttons {{GO_BACK}} {{GO_HOME}} {{APP_SWITCH}} {{VOLUME_UP}} {{VOLUME_DOWN}} {{POWER}} {{WAKEUP}} {{SLEEP}}, and Ctrl/Shift/Alt with a letter or digit."
    )
}

/// launch_app or close_app without an app.
pub const APP_NEEDED: &str = "Name the app: its package (\"com.android.settings\") or its label as the home screen shows it (\"Settings\"); list_apps lists the installed packages.";

/// An app label that matches several packages.
pub fn ambiguous_app(label: &str, packages: &[String]) -> String {
    format!(
        "\"{label}\" could be any of {}: launch_app one of them by its package.",
        packages.join(", ")
    )
}

/// An app label nothing matches.
pub fn unknown_app(label: &str, close: &[String]) -> String {
    let hint = if close.is_empty() {
        "list_apps lists the installed packages".to_owned()
    } else {
        format!("installed packages that look close: {}", close.join(", "))
    };
    format!(
        "No installed app is called \"{label}\" (no package, known label, package name or home-screen icon matched); {hint}."
    )
}

/// screencap answered something that is not a PNG.
pub fn screenshot_unreadable(bytes: usize) -> String {
    format!(
        "The phone's screenshot is not a PNG ({bytes} bytes came back from screencap); try again, and check that the screen is on."
    )
}

/// A serial the adb server does not list.
pub fn no_such_phone(serial: &str, listed: &[String]) -> String {
    format!(
        "The adb server lists no phone {serial:?} (it lists: {}). Check the cable or `adb connect HOST:PORT`, and `adb devices -l`.",
        or_none(listed)
    )
}

/// A phone listed but not ready; `advice` is what to do about its state (deft-adb's).
pub fn phone_not_ready(serial: &str, state: &str, advice: &str) -> String {
    format!("Phone {serial} is {state}: {advice}")
}

/// No phone ready on the adb server.
pub fn no_phone(listed: &[String]) -> String {
    format!(
        "No phone is ready on the adb server (it lists: {}). Connect one with USB debugging on, or `adb connect HOST:PORT`.",
        or_none(listed)
    )
}

/// Several phones and no serial.
pub fn which_phone(serials: &[String]) -> String {
    format!(
        "Several phones are connected ({}): name one with the option serial.",
        serials.join(", ")
    )
}

fn or_none(listed: &[String]) -> String {
    if listed.is_empty() {
        "none".to_owned()
    } else {
        listed.join(", ")
    }
}

/// close_app's message.
pub fn closed(package: &str, front: &str) -> String {
    format!("Stopped {package} (am force-stop); {front} is in front now.")
}

/// `set_clipboard` / `get_clipboard` on a phone without the clipboard helper, and none in
/// the APK folders (`dirs`) to copy.
pub fn no_clipboard_helper(path: &str, dirs: &[String]) -> String {
    let folders = if dirs.is_empty() {
        String::from("none is set: the phone's apk_dirs option")
    } else {
        dirs.join(", ")
    };
    format!(
        "This phone has no clipboard helper at {path}: adb has no clipboard command, and Android lets only the app in front or the keyboard use the clipboard. Put Mobile Next's devicekit.dex (github.com/mobile-next/devicekit-android, its releases) in one of the APK folders ({folders}) and deft copies it to the phone, or push it yourself (adb push devicekit.dex {path}). To enter text, keyboard_input types any Unicode without the clipboard."
    )
}

/// The clipboard helper failed (`said`: what it printed).
pub fn clipboard_helper_failed(path: &str, said: &str) -> String {
    let first = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    format!(
        "The clipboard helper at {path} failed: {}. Check that it is Mobile Next's devicekit.dex (an up-to-date release), or remove it so deft copies it again from the APK folders.",
        first.trim()
    )
}

/// Text too long for a phone's clipboard.
pub fn phone_clipboard_too_long(bytes: usize, max: usize) -> String {
    format!(
        "text is {bytes} bytes of UTF-8; on a phone set_clipboard takes at most {max} (it travels on one adb command line). Split it, or type it with keyboard_input."
    )
}

/// The clipboard helper was copied to the phone from `local`.
pub fn clipboard_helper_copied(local: &str, path: &str) -> String {
    format!("deft copied the clipboard helper {local} to the phone ({path}) first.")
}

/// install_app on a server with no APK folders.
pub const NO_APK_DIRS: &str = "install_app installs APKs only from the folders the phone's options allow (apk_dirs), and none is set: ask whoever runs deft to add one.";

/// An APK path outside the allowed folders.
pub fn apk_outside(path: &str, dirs: &[String]) -> String {
    format!(
        "{path} is not inside the folders APKs may be installed from ({}); put the APK there first.",
        dirs.join(", ")
    )
}

/// An APK that cannot be read.
pub fn apk_unreadable(path: &str, why: &str) -> String {
    format!("cannot read the APK {path}: {why}")
}

/// An APK over the size limit.
pub fn apk_too_big(path: &str, bytes: u64, max: u64) -> String {
    format!("{path} is {bytes} bytes; install_app takes APKs of at most {max} bytes.")
}

/// swipe with both or neither of path and direction.
pub const SWIPE_PATH_OR_DIRECTION: &str = "swipe takes either path (2 or more [x, y] points) or direction (up, down, left, right) with amount and an optional control id, not both and not neither.";

/// A swipe direction that is none of the four.
pub fn bad_direction(given: &str) -> String {
    format!(
        "Unknown swipe direction {given:?}: use \"up\", \"down\", \"left\" or \"right\" (the way the finger moves)."
    )
}

/// An annotated screenshot's caption: how many controls it marks.
pub fn marks_drawn(n: usize) -> String {
    format!(
        "annotated: {n} interactive control{} marked with its box and id (the ids of the screen read just now)",
        if n == 1 { "" } else { "s" }
    )
}

/// A wait that was cancelled.
pub const WAIT_CANCELLED: &str = "The wait was cancelled before the control showed.";

/// A selector that cannot match.
pub fn bad_selector(problems: &[String]) -> String {
    format!("Invalid selector: {}", problems.join("; "))
}

/// An argument out of its range.
pub fn bad_argument(problem: &str) -> String {
    format!("Invalid arguments: {problem}")
}

/// A swipe path that is too short or too long (`max` points at most).
pub fn bad_path(points: usize, max: usize) -> String {
    format!("A swipe path needs 2 to {max} points [x, y] (fractions of the screen), got {points}.")
}

/// A `keep_awake` mode the phone does not know.
pub fn bad_stay_on(mode: &str) -> String {
    format!(
        "Unknown keep_awake mode {mode:?}: use \"always\" (while plugged in to anything), \"usb\", \"ac\", \"wireless\" or \"off\"."
    )
}

/// The tools' descriptions.
pub mod describe {
    /// get_desktop_app_info.
    pub const APP_INFO: &str = "List the phone's windows as JSON {windows: [{id, name, type, app}], screen}: the foreground app's window (app = its package, name = its activity) and a dialog over it; screen says whether the screen is on.";
    /// select_application_window.
    pub const SELECT: &str = "Select a window by id (and its name as a check). The foreground app's window is selected already; selecting the window of an app in the background brings that app to the front. Returns {root_name, window_info}.";
    /// get_app_window_controls_info.
    pub const CONTROLS: &str = "Read the phone's screen (uiautomator) and list its controls, one line each: id, type, \"name\", = \"value\", state flags; the header names the foreground app. Controls new since the previous listing start with '*'. Options: field_list (e.g. [\"rect\",\"text\",\"resource_id\",\"role\"]), only_interactive, max_controls, format (\"compact\" or \"json\"), subtree (a control id), changes (only what changed since the previous listing).";
    /// find_controls.
    pub const FIND: &str = "Find controls on the phone's screen (read fresh) by a selector {text?, type?, match?: \"exact\"|\"contains\" (default)|\"fuzzy\"|\"regex\", index?, within?: selector}: text compares with a control's name and value, type with its listed type. Answers the matches best first with score=0-100 and the chosen id; the ids work with the action tools. limit (default 10, at most 100); format: \"compact\" or \"json\".";
    /// wait_for_control.
    pub const WAIT_FOR: &str = "Wait until a control matching selector (as find_controls takes it) is on the phone's screen, or with gone=true until none matches: {appeared, control: {id, type, name, score, …}, waited_ms} or {gone, waited_ms}. A phone sends no change events over adb, so the screen is read again and again, at most about once a second. timeout_s: 0-300 (default 10); running out is an error naming what was waited for.";
    /// click_input.
    pub const CLICK: &str = "Tap a control (by id, with its name as a check) at its centre. double: two taps; hold_s (0.05-10): a long press that long. Answers {effect: changed|no_change, settle_ms, app} read from the screen after the tap.";
    /// click_on_coordinates.
    pub const CLICK_XY: &str = "Tap the screen at x, y given as fractions (0-1) of its width and height. double and hold_s as click_input.";
    /// drag_on_coordinates.
    pub const DRAG_XY: &str = "Swipe from start_x, start_y to end_x, end_y (fractions 0-1 of the screen), e.g. to move a slider or pull down the notifications.";
    /// set_edit_text.
    pub const SET_TEXT: &str = "Tap a text field and type the text into it (any Unicode), replacing its content unless clear_current_text is false. Answers {effect, value (read back), input: the route the text took}.";
    /// keyboard_input.
    pub const KEYS: &str = "Type keys into the focused field, or into control id after tapping it (control_focus, default true).";
    /// wheel_mouse_input.
    pub const WHEEL: &str = "Scroll a scrollable control (by id; none: the middle of the screen) by swiping on it: wheel_dist notches, positive scrolls up (back towards the top), negative down; one notch is a tenth of the control's height.";
    /// texts.
    pub const TEXTS: &str =
        "The texts of a control: its name, value, and the words inside it, as {texts: [...]}.";
    /// capture_window_screenshot.
    pub const SHOT: &str = "A PNG of the phone's screen (screencap), with its size.";
    /// capture_desktop_screenshot.
    pub const DESKTOP_SHOT: &str = "A PNG of the phone's whole screen (screencap), with its size.";
    /// launch_app.
    pub const LAUNCH: &str = "Open an app by package (\"com.android.settings\") or label (\"Settings\", \"计算器\"): a running app comes to the front. A link (\"https://example.org\", or an app's deep link \"myapp://…\") opens in the app that handles it. Answers the app, how it was found, and its window.";
    /// close_app.
    pub const CLOSE: &str =
        "Stop an app (am force-stop) by package or label; the phone shows what was under it.";
    /// list_apps.
    pub const LIST_APPS: &str =
        "List the installed apps' packages (pm list packages), as {packages}.";
    /// set_screen.
    pub const SCREEN: &str = "Turn the phone's screen on (on: true, wakes it) or off (on: false). Answers {screen: on|off}.";
    /// keep_awake.
    pub const KEEP_AWAKE: &str = "Keep the screen on while the phone is plugged in (svc power stayon): mode \"always\", \"usb\", \"ac\", \"wireless\", or \"off\" to let it sleep again.";
    /// install_app.
    pub const INSTALL: &str = "Install (or update) an APK from a folder the phone's options allow (apk_dirs), by its path on this machine. Answers the packages it added.";
    /// swipe.
    pub const SWIPE: &str = "Swipe the way a finger does: direction (\"up\" brings what is below into view, \"left\" what is to the right) by amount (0.05-1 of the control's or screen's size, default 0.5) inside control id or the screen; or a touch path through points [[x, y], …] (fractions 0-1 of the screen, 2 to 50 points): two points are a swipe, more a gesture (a pattern, a curve). duration_ms: default 300.";
    /// wait.
    pub const WAIT: &str = "Wait for `seconds` (0–300), e.g. for a slow app; then return.";
    /// summary.
    pub const SUMMARY: &str =
        "Record a short summary of what you observed; it is returned as given.";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_read_as_written() {
        assert_eq!(
            dump_unreadable("unexpected end"),
            "the phone's screen dump is not readable XML (unexpected end); take the screen again"
        );
        assert_eq!(
            DUMP_EMPTY,
            "the phone's screen dump holds no view (the screen may be off or locked); wake it and take the screen again"
        );
        assert_eq!(
            dump_failed("ERROR: could not get idle state."),
            "uiautomator could not dump the screen: ERROR: could not get idle state."
        );
        assert_eq!(
            refused(
                "input tap 1 2",
                "java.lang.SecurityException: Injecting input events requires INJECT_EVENTS"
            ),
            "the phone refused `input tap 1 2`: java.lang.SecurityException: Injecting input events requires INJECT_EVENTS"
        );
        assert_eq!(
            no_input_method("苏州"),
            "cannot type \"苏州\": adb's `input text` types printable ASCII only, and other text needs the ADBKeyBoard input method on the phone (install ADBKeyboard.apk with `adb install`; deft selects it while it types and puts the phone's keyboard back after). Nothing was typed."
        );
        assert_eq!(
            no_such_app("com.nope"),
            "no app with a launcher activity has the package \"com.nope\" on this phone; list_apps lists the installed packages"
        );
    }
}
