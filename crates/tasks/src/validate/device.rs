//! Device kinds and what each can do: the warnings for a step the chosen device cannot
//! carry out (valid in the language, so a task can move between devices, but a run there
//! would fail or do nothing).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::step::{Action, OpenApp, StepType};
use crate::texts;

/// What kind of device a task runs on, for the warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    /// A Linux desktop (`local`, or a remote client with the desktop profile).
    Desktop,
    /// A managed Chromium (`browser`, or a remote client with the browser profile).
    Browser,
    /// A phone.
    Android,
    /// A remote client whose profile the caller does not know: no device warnings.
    Remote,
}

impl DeviceKind {
    /// The kind a device id implies: `local` is the desktop, `browser` the browser, anything
    /// else a remote client (the API, which knows a client's profile, passes its kind
    /// instead).
    pub fn of_device(id: &str) -> Self {
        match id.trim() {
            "local" => DeviceKind::Desktop,
            "browser" => DeviceKind::Browser,
            _ => DeviceKind::Remote,
        }
    }

    /// The kind a device's profile implies: `browser`, a `desktop` profile, `android`; any
    /// other profile (`shell`, a test's) a remote device of unknown kind.
    pub fn of_profile(profile: &str) -> Self {
        match profile {
            "browser" => DeviceKind::Browser,
            "android" => DeviceKind::Android,
            p if p.starts_with("desktop") => DeviceKind::Desktop,
            _ => DeviceKind::Remote,
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::Desktop => "desktop",
            DeviceKind::Browser => "browser",
            DeviceKind::Android => "android",
            DeviceKind::Remote => "remote",
        }
    }

    fn called(self) -> &'static str {
        match self {
            DeviceKind::Desktop => "the desktop",
            DeviceKind::Browser => "a browser device",
            DeviceKind::Android => "a phone",
            DeviceKind::Remote => "a remote device",
        }
    }
}

/// Why `kind` cannot do `action`, if it cannot.
pub fn cannot(kind: DeviceKind, action: &Action) -> Option<String> {
    let screenless = matches!(kind, DeviceKind::Desktop | DeviceKind::Browser);
    match action {
        Action::ScreenOn | Action::ScreenOff if screenless => Some(texts::no_screen_power(
            kind.called(),
            action.step_type().as_str(),
        )),
        Action::KeepScreen(_) if screenless => Some(texts::keep_screen_noop(kind.called())),
        Action::OpenApp(OpenApp::Url { .. }) if kind == DeviceKind::Desktop => {
            Some(texts::URL_ON_DESKTOP.to_owned())
        }
        Action::OpenApp(OpenApp::App { .. }) if kind == DeviceKind::Browser => {
            Some(texts::APP_IN_BROWSER.to_owned())
        }
        Action::StopApp(s) if kind == DeviceKind::Browser && !looks_like_site(&s.app) => {
            Some(texts::stop_app_in_browser(&s.app))
        }
        Action::Gesture(g) if screenless && g.points.len() > 2 => {
            Some(texts::gesture_straight(kind.called()))
        }
        _ => None,
    }
}

/// Whether `app` can be a page's root name as a browser lists its tabs: a host (`example.org`,
/// `127.0.0.1`, `localhost`), a scheme without hosts (`file`, `about`, `data`, `blob`), or a
/// variable filled in at run time.
fn looks_like_site(app: &str) -> bool {
    let app = app.trim();
    app.contains('.')
        || app.contains(':')
        || app.contains("{{")
        || matches!(app, "localhost" | "file" | "about" | "data" | "blob")
}

/// The step types `kind` cannot carry out at all (none for a device of unknown kind), for
/// an editor to mark.
pub fn unsupported_types(kind: DeviceKind) -> Vec<StepType> {
    match kind {
        DeviceKind::Desktop | DeviceKind::Browser => {
            vec![
                StepType::ScreenOn,
                StepType::ScreenOff,
                StepType::KeepScreen,
            ]
        }
        DeviceKind::Android | DeviceKind::Remote => Vec::new(),
    }
}
