//! Every text this backend writes for the model (tool descriptions, errors, warnings). Stable:
//! prompts and tests rely on them.

/// The server's name in MCP `initialize`.
pub const SERVER_NAME: &str = "deft-desktop";

/// Server instructions.
pub const INSTRUCTIONS: &str = "Linux desktop applications through the accessibility tree (AT-SPI) and real input (XTest). Call get_desktop_app_info, then select_application_window, then get_app_window_controls_info; act on controls by id with the name as a check.";

/// No window or control map yet (UFO's text).
pub const NO_WINDOWS: &str =
    "No application windows available. Please call get_desktop_app_info first.";

/// No control list of the selected window yet.
pub const NO_CONTROLS: &str =
    "No controls available. Please call get_app_window_controls_info first.";

/// An action or control listing without a selected window.
pub const NO_WINDOW_SELECTED: &str =
    "No window selected. Call get_desktop_app_info and select_application_window first.";

/// Neither a display in the environment nor a running managed desktop.
pub fn no_display(state_file: &str) -> String {
    format!(
        "No desktop to operate: DISPLAY is not set and no managed virtual desktop runs (state file {state_file}). Start one with `deft desktop start`, or set DISPLAY (and DBUS_SESSION_BUS_ADDRESS or AT_SPI_BUS_ADDRESS) to a running X session with AT-SPI."
    )
}

/// The managed desktop a device was made for does not run.
pub fn managed_desktop_gone(state_file: &str) -> String {
    format!(
        "The managed virtual desktop of this device does not run (state file {state_file}); its programs would have no display of their own. Start the run again: it starts its desktops anew."
    )
}

/// The desktop could not be reached.
pub fn unreachable(what: &str, err: &str) -> String {
    format!(
        "Cannot reach the desktop's {what}: {err}. Check that the desktop runs (`deft desktop status`) and retry."
    )
}

/// Missing id argument.
pub fn empty_id(kind: &str) -> String {
    format!("The {kind} id is empty. Give the id from the latest listing.")
}

/// Unknown window id.
pub fn unknown_window(id: &str, known: &[String]) -> String {
    format!(
        "Window id {id} is not in the list of windows. Available window ids: {}. Call get_desktop_app_info to refresh the list.",
        list_or_none(known)
    )
}

/// A window id that was listed but has closed.
pub fn window_gone(id: &str, name: &str) -> String {
    format!(
        "Window {id} ({name:?}) is no longer open. Call get_desktop_app_info to refresh the list of windows."
    )
}

/// Unknown control id.
pub fn unknown_control(id: &str, known: &[String]) -> String {
    format!(
        "Control id {id} is not in the control list of the selected window. Available control ids: {}. Call get_app_window_controls_info to refresh it.",
        list_or_none(known)
    )
}

/// A control id of another window.
pub fn other_window(id: &str, window_id: &str, window_name: &str) -> String {
    format!(
        "Control {id} belongs to window {window_id} ({window_name:?}), not the selected window; select it first with select_application_window."
    )
}

/// A control that no longer exists.
pub fn vanished(id: &str, name: &str) -> String {
    format!(
        "Control {id}: {name} no longer exists in the window, please refresh the application state with get_app_window_controls_info to get the latest control ids."
    )
}

/// UFO's validation failure text.
pub fn not_interactable(id: &str, name: &str, action: &str, why: &str) -> String {
    format!(
        "Control {id}: {name} is not available or not interactable for the action {action} ({why}), please refresh the application state to get the latest interactable control information."
    )
}

/// Why an action refuses a control scrolled out of its list (docs/observation.md `offscreen`:
/// the action tools do not scroll).
pub const SCROLLED_OUT: &str =
    "scrolled out of view; scroll it into view first, e.g. wheel_mouse_input on its list";

/// UFO's name-mismatch warning.
pub fn name_mismatch(id: &str, real: &str, given: &str) -> String {
    format!(
        "Warning: The name of your chosen control id {id} is {real}, but the name argument is {given}. The action is performed on control {id}:{real}."
    )
}

/// `texts` on a name mismatch: only the warning, nothing read.
pub fn texts_mismatch(id: &str, real: &str, given: &str) -> String {
    format!(
        "Warning: The name of your chosen control id {id} is {real}, but the name argument is {given}. Nothing was read; call texts again with the matching id and name."
    )
}

/// A coordinate fraction outside 0..=1.
pub fn bad_fraction(name: &str, value: f64) -> String {
    format!(
        "{name} = {value} is outside the window: coordinates are fractions of the selected window, from 0.0 (left/top) to 1.0 (right/bottom)."
    )
}

/// Unknown mouse button.
pub fn bad_button(button: &str) -> String {
    format!("Unknown mouse button {button:?}: use \"left\", \"right\" or \"middle\".")
}

/// `select_option` on a control without options.
pub fn no_options(id: &str, name: &str) -> String {
    format!(
        "Control {id}: {name} has no options to select. select_option works on combo boxes, lists and tables."
    )
}

/// Most options an unknown-option error names.
const MAX_OPTIONS_NAMED: usize = 30;

/// `select_option` with an option that is not there (names the first 30 options).
pub fn unknown_option(option: &str, options: &[String]) -> String {
    let named = options
        .iter()
        .take(MAX_OPTIONS_NAMED)
        .map(|o| format!("{o:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let more = options.len().saturating_sub(MAX_OPTIONS_NAMED);
    if more > 0 {
        format!("There is no option {option:?}. Options: {named} and {more} more.")
    } else {
        format!("There is no option {option:?}. Options: {named}.")
    }
}

/// `set_edit_text` on something that takes no text.
pub fn not_editable(id: &str, name: &str) -> String {
    format!(
        "Control {id}: {name} does not take text. Use set_edit_text on an edit control, or keyboard_input."
    )
}

/// `texts` on a control without text.
pub fn no_text(id: &str, name: &str) -> String {
    format!("Control {id}: {name} has no text to read.")
}

/// click_input with hold_s on a control that has no position on screen.
pub fn cannot_hold(id: &str, name: &str) -> String {
    format!(
        "Control {id}: {name} has no position on screen, so it cannot be pressed and held (hold_s needs the pointer). Scroll it into view, or click it without hold_s."
    )
}

/// close_app without an application name.
pub const CLOSE_NEEDS_APP: &str = "close_app needs the application's name: the name launch_app took (\"mousepad\") or its root name, the app of get_desktop_app_info (\"gnome-calculator\").";

/// close_app of an application with no window and no process deft started.
pub fn close_nothing(app: &str) -> String {
    format!(
        "No window or process of {app} is running: nothing to close. get_desktop_app_info lists the open windows with their app (root) names."
    )
}

/// close_app's answer.
pub fn closed_app(app: &str, windows: usize, processes: usize, forced: usize) -> String {
    let how = if forced == 0 {
        "they exited after their windows closed".to_owned()
    } else {
        format!(
            "{forced} signal(s) were needed (a process that did not exit after its windows were asked to close, e.g. one asking to save, was ended without saving)"
        )
    };
    format!("Closed {app}: {windows} window(s) closed, {processes} process(es) ended; {how}.")
}

/// close_app when a process outlived SIGKILL (stuck in the kernel, or not ours to signal).
pub fn close_survivors(app: &str, pids: &[i32]) -> String {
    let list: Vec<String> = pids.iter().map(i32::to_string).collect();
    format!(
        "Processes of {app} still run after SIGTERM and SIGKILL: {}. They may be stuck or owned by another user; check them with run_shell (ps).",
        list.join(", ")
    )
}

/// launch_app with an app that is neither a desktop entry (in `dirs`, searched in that order)
/// nor allowed, and has no window open.
pub fn launch_refused(app: &str, allowed: &[String], dirs: &[std::path::PathBuf]) -> String {
    let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    format!(
        "Cannot launch {app:?}: it is neither an installed desktop application (a .desktop entry name such as \"mousepad\" or \"org.gnome.Calculator\", searched in {}) nor on the allow-list of executables ({}).",
        list_or_none(&dirs),
        list_or_none(allowed)
    )
}

/// launch_app could not start the program at all.
pub fn cannot_start(program: &str, err: &std::io::Error) -> String {
    format!("Cannot start {program}: {err}")
}

/// launch_app with a `title` that no open window of the app has.
pub fn no_window_titled(app: &str, title: &str, titles: &[String]) -> String {
    let quoted: Vec<String> = titles.iter().map(|t| format!("{t:?}")).collect();
    format!(
        "{app} has no open window whose title contains {title:?} (its windows: {}). Leave title out to take its newest window, or pass new_instance: true to start another instance.",
        list_or_none(&quoted)
    )
}

/// launch_app with `title` and `new_instance: true` or `args`.
pub const TITLE_CONFLICT: &str = "title picks a window of the app that is already open, while new_instance: true and args start the app: give title alone, or leave it out.";

/// launch_app found the app's window already open and started nothing.
pub fn already_open(app: &str) -> String {
    format!(
        "{app} already had this window open; nothing was started (new_instance: true starts another instance)."
    )
}

/// launch_app's program handed the request to the app's running instance and exited.
pub fn handed_to_running(app: &str) -> String {
    format!(
        "{app} handed the request to its running instance, whose window this is (showing a new tab or document if the request opened one); no new process runs."
    )
}

/// launch_app: started, no window within the wait, and the program still runs.
pub fn launch_no_window(app: &str, program: &str, pid: u32, secs: u64) -> String {
    format!(
        "{app} ({program}, pid {pid}) was started but showed no window within {secs} s; it is still running. If it is still starting, wait and call get_desktop_app_info to look for its window; if it never opens one (a command-line or background program), use run_shell for it instead."
    )
}

/// launch_app of a document: it was opened, but its window did not show up.
pub fn document_no_window(app: &str, title: &str, secs: u64) -> String {
    format!(
        "{app} was opened (window {title:?}) but its window did not appear on the desktop within {secs} s. Call get_desktop_app_info to look for it."
    )
}

/// launch_app: the program exited without a window.
pub fn launch_exited(app: &str, program: &str, status: &str) -> String {
    format!(
        "{app} ({program}) exited with {status} without opening a window; nothing of it is left running. It may be a command-line program (use run_shell for those) or need other arguments."
    )
}

/// An action's text result.
pub fn done(action: &str, effect: &str) -> String {
    format!("{action} done; effect: {effect}.")
}

/// A screenshot that could not be taken.
pub fn screenshot_failed(err: &str) -> String {
    format!("Screenshot failed: {err}")
}

/// Key steps that hold a modifier the keyboard map lacks.
pub fn no_modifier_key(modifier: &str) -> String {
    format!("the keyboard has no {modifier} key")
}

/// click_input on a control without a position whose accessible action failed.
pub fn no_position_action_failed(err: &str) -> String {
    format!("The control has no on-screen position and its action failed: {err}")
}

/// select_option: the option's item went away between reading and selecting.
pub fn option_vanished(index: usize) -> String {
    format!("option {index} vanished")
}

/// select_option: every way of selecting the option failed.
pub fn option_select_failed(err: &str) -> String {
    format!("Selecting the option failed: {err}")
}

/// A selector that cannot match anything: every problem, each with its path
/// (`deft_protocol::selector::Selector::problems`).
pub fn bad_selector(problems: &[String]) -> String {
    format!(
        "The selector cannot be used ({} problem{}): {}. A selector is {{\"text\"?, \"type\"?, \"match\"?: \"exact\"|\"contains\"|\"fuzzy\"|\"regex\", \"index\"?, \"within\"?: selector}} with a text or a type.",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        problems.join("; ")
    )
}

/// `wait_for_control` where AT-SPI events cannot be watched.
pub const NO_EVENTS_TO_WAIT_ON: &str = "wait_for_control needs the desktop's accessibility events, and this desktop's cannot be watched. Use wait, then find_controls.";

/// A `wait_for_control` cancelled by its caller.
pub const WAIT_CANCELLED: &str =
    "wait_for_control was cancelled before it had an answer; nothing was changed.";

/// The clipboard's own X connection cannot be opened.
pub fn clipboard_unreachable(display: &str, cause: &str) -> String {
    format!(
        "The clipboard of X display {display} is unreachable ({cause}); the desktop may have stopped. Check it with get_desktop_app_info, then retry."
    )
}

/// An X request of the clipboard failed.
pub fn clipboard_x_failed(cause: &str) -> String {
    format!("The clipboard request failed in X ({cause}); please retry.")
}

/// Another client took the clipboard between our claim and our check.
pub const CLIPBOARD_NOT_TAKEN: &str = "Another application took the clipboard at the same moment; the text was not set. Please retry.";

/// The text does not fit one X request.
pub fn clipboard_too_large(bytes: usize, max: usize) -> String {
    format!(
        "The text is {bytes} bytes of UTF-8; this X server takes at most {max} bytes in one transfer. Set a shorter text."
    )
}

/// The owner of the clipboard does not answer a conversion.
pub fn clipboard_owner_silent(secs: u64) -> String {
    format!(
        "The application that owns the clipboard did not answer within {secs} s (it may be busy or hung); the clipboard could not be read. Retry, or copy the text again."
    )
}

fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_not_covered_by_the_integration_tests_are_stable() {
        assert_eq!(
            window_gone("3", "Untitled 1 - Mousepad"),
            "Window 3 (\"Untitled 1 - Mousepad\") is no longer open. Call get_desktop_app_info to refresh the list of windows."
        );
        assert_eq!(
            unreachable("X display :5", "connection refused"),
            "Cannot reach the desktop's X display :5: connection refused. Check that the desktop runs (`deft desktop status`) and retry."
        );
        assert_eq!(no_text("4", "Logo"), "Control 4: Logo has no text to read.");
        assert_eq!(
            managed_desktop_gone("/data/desktop-1/desktop.json"),
            "The managed virtual desktop of this device does not run (state file /data/desktop-1/desktop.json); its programs would have no display of their own. Start the run again: it starts its desktops anew."
        );
        let many: Vec<String> = (1..=32).map(|i| format!("Row {i}")).collect();
        let text = unknown_option("Row 99", &many);
        assert!(
            text.starts_with("There is no option \"Row 99\". Options: \"Row 1\", \"Row 2\","),
            "{text}"
        );
        assert!(
            text.ends_with("\"Row 29\", \"Row 30\" and 2 more."),
            "{text}"
        );
        assert_eq!(
            unknown_window("7", &[]),
            "Window id 7 is not in the list of windows. Available window ids: none. Call get_desktop_app_info to refresh the list."
        );
        assert_eq!(
            launch_refused(
                "rm",
                &[],
                &[
                    "/home/z/.local/share/applications".into(),
                    "/usr/share/applications".into()
                ]
            ),
            "Cannot launch \"rm\": it is neither an installed desktop application (a .desktop entry name such as \"mousepad\" or \"org.gnome.Calculator\", searched in /home/z/.local/share/applications, /usr/share/applications) nor on the allow-list of executables (none)."
        );
        assert_eq!(
            no_window_titled("mousepad", "notes", &["Untitled 1 - Mousepad".into()]),
            "mousepad has no open window whose title contains \"notes\" (its windows: \"Untitled 1 - Mousepad\"). Leave title out to take its newest window, or pass new_instance: true to start another instance."
        );
        assert_eq!(
            done("click_input", "changed"),
            "click_input done; effect: changed."
        );
    }

    #[test]
    fn texts_that_lived_beside_their_tools_read_as_before() {
        assert_eq!(
            screenshot_failed("X11: boom"),
            "Screenshot failed: X11: boom"
        );
        assert_eq!(no_modifier_key("super"), "the keyboard has no super key");
        assert_eq!(
            no_position_action_failed("no action"),
            "The control has no on-screen position and its action failed: no action"
        );
        assert_eq!(option_vanished(3), "option 3 vanished");
        assert_eq!(
            option_select_failed("denied"),
            "Selecting the option failed: denied"
        );
    }
}

/// The tools' descriptions (what the model reads in the tool list).
pub mod describe {
    /// `get_desktop_app_info`.
    pub const GET_DESKTOP_APP_INFO: &str = "List the desktop's top-level windows as JSON [{id, name, type, app}] (app = the application's root name). Ids stay valid for the device session.";

    /// `get_app_window_controls_info`.
    pub const GET_APP_WINDOW_CONTROLS_INFO: &str = "List the selected window's controls: one line per control `id type \"name\" [= \"value\"] states`, compact by default (format: \"json\" for JSON). field_list adds fields (rect, text, description, role); only_interactive, max_controls and subtree (a control id: only it and its descendants) narrow it. A leading * marks controls new since the previous listing.";

    /// `capture_window_screenshot`.
    pub const CAPTURE_WINDOW_SCREENSHOT: &str = "PNG screenshot of the selected window (falls back to the whole desktop). annotated: true draws each listed interactive control's box and id.";

    /// `capture_desktop_screenshot`.
    pub const CAPTURE_DESKTOP_SCREENSHOT: &str = "PNG screenshot of the whole desktop.";

    /// `get_ui_tree`.
    pub const GET_UI_TREE: &str = "The selected window's raw accessibility tree: {depth, nodes, tree, note?} with tree = nested {type, role, name, rect, children | children_omitted}. max_depth 0-32 (default 8); at most 300 nodes: deeper levels are dropped with a note.";

    /// `select_application_window`.
    pub const SELECT_APPLICATION_WINDOW: &str = "Select a window by id (name as a check) from get_desktop_app_info: raises and focuses it; later control tools act on it. Returns {root_name, window_info}.";

    /// `launch_app`.
    pub const LAUNCH_APP: &str = "Start an installed desktop application by its desktop-entry name (e.g. \"mousepad\"; the user's entries in ~/.local/share/applications first, then the system's) or an allow-listed executable, detached; waits for its window (15 s unless configured) and returns it: {window: {id, name, type, app}, pid, found_by}. An application that already has a window is not started again, as on a phone: its newest window, or the one whose title contains `title`, comes back with found_by: already_open; new_instance: true (or args) starts it anyway. found_by says how the window was recognised: process, descendant (started by a launcher script), process_group, wm_class, root, new_tab or running_instance (a running instance took the request), already_open. Select it with select_application_window. A program that opens no window fails with what to do instead.";

    /// `close_app`.
    pub const CLOSE_APP: &str = "Close an application by the name launch_app takes or its root name (the app of get_desktop_app_info): asks its windows to close as a person would (the window manager's close), gives its processes 3 s to exit, then ends the rest (SIGTERM, SIGKILL after 2 s). Only the processes of its windows and those launch_app started for it are touched. Returns {closed_windows, ended_pids, forced}. An application that asks to save is ended without saving: save first.";

    /// `click_input`.
    pub const CLICK_INPUT: &str = "Click a control by id (name as a check) with a real pointer click at its centre; button left/right/middle, double for a double-click, hold_s (0.05-10) to press and hold that long before releasing (a long press). Result has effect: changed | no_change.";

    /// `click_on_coordinates`.
    pub const CLICK_ON_COORDINATES: &str = "Click at a point of the selected window given as fractions (x, y from 0.0 to 1.0 of its width and height).";

    /// `drag_on_coordinates`.
    pub const DRAG_ON_COORDINATES: &str = "Drag with a real pointer from (start_x, start_y) to (end_x, end_y), fractions of the selected window; key_hold holds ctrl/shift/alt during the drag.";

    /// `set_edit_text`.
    pub const SET_EDIT_TEXT: &str = "Replace the text of an edit control (id, name as a check) with `text`, or append it with clear_current_text: false; any Unicode arrives intact. Falls back to typing for controls without editable text.";

    /// `wheel_mouse_input`.
    pub const WHEEL_MOUSE_INPUT: &str = "Turn the mouse wheel over a control (id, name as a check): wheel_dist notches, positive scrolls up, negative down.";

    /// `texts`.
    pub const TEXTS: &str = "The full text of a control (id, name as a check). On a name mismatch it returns only a warning and reads nothing.";

    /// `select_option`.
    pub const SELECT_OPTION: &str = "Choose an option by its text (id, name as a check) in a combo box, a list (the row's text) or a table or tree view (the row's first cell), through accessibility: rows scrolled out of view work too.";

    /// `find_controls`.
    pub const FIND_CONTROLS: &str = "Find controls of the selected window by a selector {text?, type?, match?: exact|contains (default)|fuzzy|regex, index?, within?: selector}: text compares with the name and the value, type with the listed type, within narrows to the subtree of the control another selector picks, index picks among equally scored matches (document order). Answers the matches best first as listing lines with score=0-100 (limit, default 10), the chosen id in the header; the ids work with the action tools. format: \"json\" for JSON.";

    /// `wait_for_control`.
    pub const WAIT_FOR_CONTROL: &str = "Wait until a control matching a selector (as find_controls takes it) is in the selected window, or with gone: true until none is; answers the moment it happens (it watches the window's accessibility events) with {appeared, control, waited_ms} or {gone, waited_ms}. timeout_s 0-300 (default 10); running out is an error naming the selector.";

    /// `wait`.
    pub const WAIT: &str = "Wait for `seconds` (0–300), e.g. for an application to finish loading.";

    /// `summary`.
    pub const SUMMARY: &str =
        "Record a short summary of what you see or did; returned as is for later steps.";
}
