//! Every text the model reads from the browser tools: descriptions, errors and warnings.
//! Tested verbatim (tests/texts.rs and the behaviour tests).

/// MCP server name.
pub const SERVER_NAME: &str = "deft-browser";

/// The server's instructions.
pub const INSTRUCTIONS: &str = "Operate a Chromium browser. Tabs are windows: list them with \
get_desktop_app_info and select one with select_application_window. List the page's controls with \
get_app_window_controls_info, then act on a control by its id and name. Ids stay valid while the \
element exists; after a navigation or re-render, list again.";

/// Shown when no tab is selected.
pub const NO_WINDOW: &str =
    "No window selected. Call get_desktop_app_info and select_application_window first.";

/// The tab a selected window id pointed to is gone.
pub fn window_gone(id: u64) -> String {
    format!(
        "Window {id} (a browser tab) was closed. Call get_desktop_app_info and select_application_window again."
    )
}

/// A window id that does not exist.
pub fn unknown_window(id: &str, known: &[String]) -> String {
    let known = if known.is_empty() {
        "there are no open tabs; open one with new_tab".to_owned()
    } else {
        format!("open tabs: {}", known.join(", "))
    };
    format!(
        "Window id '{id}' does not exist ({known}). Call get_desktop_app_info to refresh the list."
    )
}

/// The name given with a window id differs from the tab's title.
pub fn window_name_warning(id: u64, given: &str, real: &str) -> String {
    format!("Warning: window {id} is named \"{real}\", not \"{given}\"; it was selected by its id.")
}

/// The name given with a control id differs from the control's name.
pub fn control_name_warning(id: u64, given: &str, real: &str, kind: &str) -> String {
    format!(
        "Warning: control {id} is the {kind} \"{real}\", not \"{given}\"; the action was done on control {id} by its id."
    )
}

/// A control id that no listing gave out.
pub fn unknown_control(id: &str, range: Option<(u64, u64)>) -> String {
    let known = match range {
        Some((lo, hi)) => format!("the current listing of this window has ids {lo} to {hi}"),
        None => "this window has not been listed yet".to_owned(),
    };
    format!(
        "Control id '{id}' is unknown ({known}). Call get_app_window_controls_info and use an id from it."
    )
}

/// An id that is not a positive decimal number.
pub fn bad_id(what: &str, given: &str) -> String {
    if given.trim().is_empty() {
        return format!(
            "No {what} id given: pass the id from the latest listing (get_desktop_app_info for tabs, get_app_window_controls_info for controls)."
        );
    }
    format!(
        "'{given}' is not a {what} id: ids are decimal numbers like \"7\", as get_desktop_app_info and get_app_window_controls_info print them."
    )
}

/// A control of another tab.
pub fn control_in_other_window(id: u64, window: u64) -> String {
    format!(
        "Control {id} belongs to window {window}; select it first with select_application_window."
    )
}

/// The element behind an id no longer exists.
pub fn stale_control(id: u64, name: &str) -> String {
    format!(
        "Control {id} (\"{name}\") no longer exists on the page: it was removed, re-rendered or the page navigated. \
         Please refresh the application state with get_app_window_controls_info and use the new id."
    )
}

/// The control cannot be acted on because it is hidden.
pub fn control_hidden(id: u64, name: &str) -> String {
    format!(
        "Control {id} (\"{name}\") is not visible now, so it cannot be operated. \
         Please refresh the application state with get_app_window_controls_info and pick a visible control."
    )
}

/// The control stayed disabled.
pub fn control_disabled(id: u64, name: &str) -> String {
    format!(
        "Control {id} (\"{name}\") is disabled, so it cannot be operated. \
         Please refresh the application state, complete what enables it first, or pick another control."
    )
}

/// set_edit_text on something that takes no text.
pub fn not_editable(id: u64, name: &str, kind: &str) -> String {
    format!(
        "Control {id} (\"{name}\") is a {kind}, which does not take text. Use click_input, select_option or keyboard_input instead."
    )
}

/// A mouse button name that is not one.
pub fn bad_button(given: &str) -> String {
    format!("Unknown mouse button '{given}': use \"left\", \"right\" or \"middle\".")
}

/// A file for a file input outside the allowed folders.
pub fn upload_refused(path: &str, roots: &[String]) -> String {
    format!(
        "'{path}' cannot be put into a file input: only files inside {} may be (the downloads folder, the system temp folder and the upload_dirs option). Use a file from one of them.",
        roots.join(", ")
    )
}

/// A relative path for a file input.
pub fn upload_not_absolute(path: &str) -> String {
    format!(
        "'{path}' is not an absolute path: give the file's full path, such as /tmp/report.pdf (one path per line for several files)."
    )
}

/// A path for a file input that does not exist.
pub fn upload_missing(path: &str) -> String {
    format!("'{path}' does not exist: check the path and give an existing file.")
}

/// A path for a file input that is a folder (or not a regular file).
pub fn upload_not_a_file(path: &str) -> String {
    format!("'{path}' is not a file (it is a folder or a special file): give the path of a file.")
}

/// A click opened a file chooser (intercepted: no dialog is shown).
pub fn file_chooser_opened(id: u64, name: &str) -> String {
    format!(
        "A file chooser opened for control {id} (\"{name}\"); no dialog is shown. Set the file with set_edit_text(id=\"{id}\", text=\"<absolute path>\"), one path per line for several files."
    )
}

/// select_option on something that is not a select.
pub fn not_a_select(id: u64, name: &str, kind: &str) -> String {
    format!(
        "Control {id} (\"{name}\") is a {kind}, not a select list. Use click_input on it, or list the controls again."
    )
}

/// select_option with an option that does not exist.
pub fn no_such_option(id: u64, wanted: &str, options: &[String]) -> String {
    format!(
        "Control {id} has no option \"{wanted}\". Its options: {}.",
        options
            .iter()
            .map(|o| format!("\"{o}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A dialog blocks the page.
pub fn dialog_open(kind: &str, message: &str) -> String {
    format!(
        "A {kind} dialog is open on this tab: \"{message}\". Call handle_dialog(accept, text?) before doing anything else on the page."
    )
}

/// handle_dialog with no dialog.
pub const NO_DIALOG: &str = "No dialog is open on the selected tab; there is nothing to handle.";

/// Said next to the navigations the page itself started (a link, a redirect, a frame) and the
/// URL policy refused.
pub const NAVIGATION_BLOCKED: &str = "The page tried to open what this browser may not open (see blocked); Chromium shows its error page (ERR_BLOCKED_BY_CLIENT) in its place. Use go_back to return, or pick another way.";

/// A navigation the policy refuses.
pub fn domain_blocked(host: &str) -> String {
    format!("Opening {host} is blocked by the browser's configuration (blocked_domains).")
}

/// A host outside the allowed list.
pub fn domain_not_allowed(host: &str, allowed: &[String]) -> String {
    format!(
        "Opening {host} is not allowed: this browser may only open {} (allowed_domains).",
        allowed.join(", ")
    )
}

/// A domain-list option entry that is not a host.
pub fn bad_domain_entry(list: &str, entry: &str) -> String {
    format!(
        "{list} entry '{entry}' is not a host: give a domain name (its subdomains are covered too) or an IP address, without scheme, port or path."
    )
}

/// file:// refused.
pub fn file_urls_off(url: &str) -> String {
    format!(
        "Opening {url} is refused: file:// URLs are off for this browser (allow_file_urls is false)."
    )
}

/// chrome:// refused.
pub fn chrome_urls_off(url: &str) -> String {
    format!(
        "Opening {url} is refused: chrome:// and devtools:// URLs are off for this browser (allow_chrome_urls is false)."
    )
}

/// Unsupported scheme (javascript:, ftp:, no scheme…).
pub fn bad_scheme(url: &str) -> String {
    format!(
        "'{url}' is not a URL this browser opens: use an http:// or https:// address (about:blank and data: also work)."
    )
}

/// A navigation whose server redirected it to what the URL policy refuses.
pub fn navigation_redirect_blocked(url: &str, to: &str, reason: &str) -> String {
    format!("Navigating to {url} was refused: it redirected to {to}. {reason}")
}

/// A navigation Chromium could not complete, with its reason.
pub fn navigation_failed(url: &str, reason: &str) -> String {
    format!("Navigating to {url} failed: {reason}. Check the address and try again.")
}

/// No earlier/later history entry.
pub fn no_history(direction: &str) -> String {
    format!("There is no page to go {direction} to in this tab's history.")
}

/// Coordinates outside 0..1.
pub fn bad_fraction(name: &str, value: f64) -> String {
    format!(
        "{name}={value} is outside the window: coordinates are fractions of the tab's viewport, from 0.0 (left/top) to 1.0 (right/bottom)."
    )
}

/// A browser that cannot be started or reached.
pub fn browser_unavailable(reason: &str) -> String {
    format!("The browser is not available: {reason}")
}

/// The clipboard page's copy did not take the text.
pub const CLIPBOARD_NOT_SET: &str = "The browser did not put the text on its clipboard (its copy command was refused); please retry.";

/// The clipboard page's paste did not arrive.
pub const CLIPBOARD_NOT_READ: &str = "The browser did not paste its clipboard into its reader (the paste command was refused); please retry.";

/// A CDP failure during a tool call.
pub fn browser_failed(reason: &str) -> String {
    format!(
        "The browser did not complete the request: {reason}. Please retry or execute a different command."
    )
}

/// The text after a page-text cut.
pub fn page_text_cut(shown: usize, total: usize) -> String {
    format!(
        "\n… {} more characters not shown (max_chars={shown}). Ask again with max_chars={total} to read everything.",
        total - shown
    )
}

/// The listing's note when a dialog is open.
pub fn listing_dialog_note(kind: &str, message: &str) -> String {
    dialog_open(kind, message)
}

/// A selector that cannot match anything: every problem, each with its path.
pub fn bad_selector(problems: &[String]) -> String {
    format!(
        "The selector cannot be used: {}. A selector is {{\"text\"?, \"type\"?, \"match\"?: \"exact\"|\"contains\"|\"fuzzy\"|\"regex\", \"index\"?, \"within\"?: selector}} with a text or a type.",
        problems.join("; ")
    )
}

/// find_controls or wait_for_control with an argument out of range (the protocol's text).
pub fn bad_argument(problem: &str) -> String {
    format!("Invalid arguments: {problem}")
}

/// wait_for_control stopped by its caller.
pub const WAIT_CANCELLED: &str = "wait_for_control was cancelled before the control appeared (or, with gone, went); nothing on the page was changed.";

/// Tool descriptions.
pub mod describe {
    /// get_desktop_app_info.
    pub const APP_INFO: &str = "List the browser's tabs (the windows of this device) as JSON: {id, name, type, app}, app being the page's host.";
    /// select_application_window.
    pub const SELECT: &str = "Select a tab by id (and its name as a check); the control tools then act on it. Returns {root_name, window_info}.";
    /// get_app_window_controls_info.
    pub const CONTROLS: &str = "List the selected tab's controls, one line each: id, type, \"name\", = \"value\", state flags. Controls new since the previous listing start with '*'. Options: field_list (e.g. [\"rect\",\"text\",\"url\"]), only_interactive, max_controls, format (\"compact\" or \"json\"), subtree (a control id: only that control and what it contains).";
    /// click_input.
    pub const CLICK: &str = "Click a control (by id, with its name as a check) with a real mouse click at its centre, after scrolling it into view. button: left|right|middle; double: true for a double click; hold_s (0.05-10): press and hold that long before releasing (a long press).";
    /// set_edit_text.
    pub const SET_TEXT: &str = "Focus an edit control and type the text into it, replacing its content unless clear_current_text is false. On a file input, text is the absolute path of an existing file (one per line for several) inside the downloads folder, the system temp folder or an upload_dirs folder; an empty text clears it.";
    /// keyboard_input.
    pub const KEYS: &str = concat!(
        "Press keys with real key events (the same syntax as the desktop); with id/name, the control is focused first. ",
        deft_protocol::key_syntax!()
    );
    /// wheel_mouse_input.
    pub const WHEEL: &str = "Turn the mouse wheel over a control (or the page centre without an id): wheel_dist notches, positive scrolls up, negative down.";
    /// texts.
    pub const TEXTS: &str =
        "The full texts of a control: its name, value and visible text, untruncated.";
    /// select_option.
    pub const SELECT_OPTION: &str =
        "Choose an option of a select list (combobox) by its visible text or value.";
    /// click_on_coordinates.
    pub const CLICK_XY: &str =
        "Click at a point of the tab's viewport given as fractions x, y from 0.0 to 1.0.";
    /// drag_on_coordinates.
    pub const DRAG_XY: &str = "Drag the mouse between two points of the viewport given as fractions from 0.0 to 1.0; key_hold holds ctrl/shift/alt during the drag.";
    /// capture_window_screenshot.
    pub const SHOT: &str = "A PNG of the selected tab's viewport; annotated: true draws each visible interactive control's id on it.";
    /// capture_desktop_screenshot.
    pub const DESKTOP_SHOT: &str =
        "A PNG of the screen: in the browser, the selected tab's viewport.";
    /// find_controls.
    pub const FIND: &str = "Find the selected tab's controls by a selector {text?, type?, match?: \"exact\"|\"contains\" (default)|\"fuzzy\"|\"regex\", index?, within?: selector}: text compares with a control's name and value, type with its listed type, within narrows to the subtree of the control another selector picks, index picks among equally good matches (document order). Answers the matches best first as listing lines with score=0-100, the chosen id and how a tie was broken; the ids work with the action tools. limit: most matches shown (default 10, at most 100); format: \"compact\" or \"json\".";
    /// wait_for_control.
    pub const WAIT_FOR: &str = "Wait until a control matching selector (as find_controls takes it) is on the selected tab, or with gone=true until none matches, and answer the moment it is: {appeared, control: {id, type, name, score, …}, waited_ms} or {gone, waited_ms}. It watches the page's changes (no polling). timeout_s: 0-300 (default 10); running out is an error naming what was waited for.";
    /// wait.
    pub const WAIT: &str = "Wait for `seconds` (0–300), e.g. for a slow page; then return.";
    /// summary.
    pub const SUMMARY: &str =
        "Record a short summary of what you observed; it is returned as given.";
    /// navigate.
    pub const NAVIGATE: &str =
        "Open a URL in the selected tab and wait until the page has loaded and settled.";
    /// go_back.
    pub const BACK: &str = "Go back one page in the selected tab's history.";
    /// go_forward.
    pub const FORWARD: &str = "Go forward one page in the selected tab's history.";
    /// reload.
    pub const RELOAD: &str = "Reload the selected tab.";
    /// new_tab.
    pub const NEW_TAB: &str =
        "Open a new tab (at url, or blank) and select it. Returns {root_name, window_info}.";
    /// close_tab.
    pub const CLOSE_TAB: &str = "Close a tab by its window id.";
    /// get_page_text.
    pub const PAGE_TEXT: &str = "The readable text of the selected tab (frames included), up to max_chars characters (default 8000).";
    /// handle_dialog.
    pub const DIALOG: &str = "Accept or dismiss the open alert/confirm/prompt/beforeunload dialog; text answers a prompt.";
}
