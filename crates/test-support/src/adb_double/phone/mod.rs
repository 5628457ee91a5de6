//! The simulated phone behind [`DoubleConfig::phone`](super::DoubleConfig::phone): its
//! installed apps (each a state machine, `apps/`), the app in front and the ones opened
//! before it, the recents overlay, screen power, the input methods, the stay-awake setting.
//! `input` reaches it through [`Phone::input`] (`input.rs`), the other shell commands through
//! [`Phone::shell`] (`shell.rs`, `ime.rs`); `render.rs` draws `screencap`'s PNG.

mod apps;
mod clipboard;
mod ime;
mod input;
mod render;
mod shell;
pub(crate) mod view;

use std::collections::HashMap;

use apps::{
    App, Browser, Calculator, Effect, Form, Launcher, Notes, Plain, Settings, Size, Window,
};
use view::View;

use super::config::{PhoneConfig, Reply, android_fixture};

pub(crate) use render::render;

/// The recent-apps overlay APP_SWITCH shows (a recorded dump).
const RECENTS: &str = "recents-systemui-chinese.xml";
/// The activity behind it.
const RECENTS_ACTIVITY: (&str, &str) = ("com.android.systemui", ".recents.RecentsActivity");

/// An installed app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AppInfo {
    pub(crate) package: String,
    pub(crate) label: String,
    /// Its launcher activity, short (`.Calculator`); none for an app without one (an IME).
    pub(crate) activity: Option<String>,
    /// Where its APK is (`pm path`).
    pub(crate) path: String,
}

impl AppInfo {
    fn new(package: &str, label: &str, activity: Option<&str>, path: &str) -> AppInfo {
        AppInfo {
            package: package.into(),
            label: label.into(),
            activity: activity.map(str::to_owned),
            path: path.into(),
        }
    }

    /// Its launcher activity's full class name.
    pub(crate) fn full_activity(&self) -> Option<String> {
        let short = self.activity.as_deref()?;
        Some(match short.strip_prefix('.') {
            Some(_) => format!("{}{short}", self.package),
            None => short.to_owned(),
        })
    }
}

/// The apps a new phone has.
fn preinstalled(config: &PhoneConfig) -> Vec<AppInfo> {
    let mut apps = vec![
        AppInfo::new(
            apps::launcher::PACKAGE,
            "Quickstep",
            Some(".uioverrides.QuickstepLauncher"),
            "/system_ext/priv-app/Launcher3QuickStep/Launcher3QuickStep.apk",
        ),
        AppInfo::new(
            "com.android.settings",
            "Settings",
            Some(".Settings"),
            "/system_ext/priv-app/Settings/Settings.apk",
        ),
        AppInfo::new(
            "com.android.calculator2",
            "Calculator",
            Some(".Calculator"),
            "/product/app/Calculator/Calculator.apk",
        ),
        AppInfo::new(
            "com.example.form",
            "Form",
            Some(".MainActivity"),
            "/data/app/~~fQ3vZ1yJmN0a==/com.example.form-8mXq2Lw0pR4s==/base.apk",
        ),
        AppInfo::new(
            "com.android.contacts",
            "Contacts",
            Some(".activities.PeopleActivity"),
            "/product/priv-app/Contacts/Contacts.apk",
        ),
        AppInfo::new(
            "com.example.notes",
            "记事本",
            Some(".NoteActivity"),
            "/data/app/~~Kd8sP0qLx2Vb==/com.example.notes-3nTz9QwYh1cE==/base.apk",
        ),
        AppInfo::new(
            apps::browser::PACKAGE,
            "Chrome",
            Some("com.google.android.apps.chrome.Main"),
            "/product/app/Chrome/Chrome.apk",
        ),
        AppInfo::new(
            RECENTS_ACTIVITY.0,
            "System UI",
            None,
            "/system_ext/priv-app/SystemUI/SystemUI.apk",
        ),
        AppInfo::new(
            "com.android.inputmethod.latin",
            "Android Keyboard (AOSP)",
            None,
            "/system/app/LatinIME/LatinIME.apk",
        ),
    ];
    if config.adb_keyboard {
        apps.push(AppInfo::new(
            ime::ADB_KEYBOARD_PACKAGE,
            "ADBKeyboard",
            None,
            "/data/app/~~b7Vq1xZc3Mn0==/com.android.adbkeyboard-Qw9eR2tY5uI8==/base.apk",
        ));
    }
    apps
}

/// A fresh instance of the app `info`.
fn start_app(info: &AppInfo, model: &str) -> Box<dyn App> {
    match info.package.as_str() {
        "com.android.settings" => Box::new(Settings::new(model)),
        "com.android.calculator2" => Box::new(Calculator::default()),
        "com.example.form" => Box::new(Form::default()),
        "com.example.notes" => Box::new(Notes::default()),
        apps::browser::PACKAGE => Box::new(Browser::default()),
        "com.android.contacts" => Box::new(Plain::new(&info.package, "Contacts", "No contacts")),
        package => Box::new(Plain::new(package, &info.label, package)),
    }
}

/// The simulated phone's state.
pub(crate) struct Phone {
    config: PhoneConfig,
    model: String,
    apps: Vec<AppInfo>,
    launcher: Launcher,
    /// The apps started since their last stop, with their state.
    running: HashMap<String, Box<dyn App>>,
    /// The apps opened since the last HOME, the one in front last.
    stack: Vec<String>,
    /// The recents overlay while it shows.
    recents: Option<View>,
    awake: bool,
    /// `stay_on_while_plugged_in`: 0, or the sum of 1 (AC), 2 (USB), 4 (wireless).
    stay_on: u32,
    ime: ime::Ime,
    /// Dumps still to fail before the screen settles.
    unsettled: u32,
    /// Where the finger went down (`input motionevent DOWN`).
    gesture: Option<(i32, i32)>,
    /// The clipboard's text (`None`: nothing copied).
    clipboard: Option<String>,
}

impl std::fmt::Debug for Phone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Phone")
            .field("foreground", &self.foreground())
            .field("stack", &self.stack)
            .field("awake", &self.awake)
            .field("ime", &self.ime)
            .finish_non_exhaustive()
    }
}

impl Phone {
    pub(crate) fn new(config: PhoneConfig, model: &str) -> Phone {
        let apps = preinstalled(&config);
        let ime = ime::Ime::new(config.adb_keyboard);
        let mut phone = Phone {
            config,
            model: model.to_owned(),
            apps,
            launcher: Launcher::default(),
            running: HashMap::new(),
            stack: Vec::new(),
            recents: None,
            awake: true,
            stay_on: 0,
            ime,
            unsettled: 0,
            gesture: None,
            clipboard: None,
        };
        phone.refresh_launcher();
        phone
    }

    fn size(&self) -> Size {
        Size {
            width: self.config.size.0 as i32,
            height: self.config.size.1 as i32,
        }
    }

    /// The launcher's icons: every app with a launcher activity but the launcher itself.
    fn refresh_launcher(&mut self) {
        self.launcher.icons = self
            .apps
            .iter()
            .filter(|a| a.activity.is_some() && a.package != apps::launcher::PACKAGE)
            .map(|a| (a.label.clone(), a.package.clone()))
            .collect();
    }

    /// The package in front.
    pub(crate) fn foreground(&self) -> String {
        if self.recents.is_some() {
            return RECENTS_ACTIVITY.0.to_owned();
        }
        self.stack
            .last()
            .cloned()
            .unwrap_or_else(|| apps::launcher::PACKAGE.to_owned())
    }

    fn front(&self) -> &dyn App {
        match self.stack.last().and_then(|p| self.running.get(p)) {
            Some(app) => app.as_ref(),
            None => &self.launcher,
        }
    }

    fn front_mut(&mut self) -> &mut dyn App {
        match self.stack.last().and_then(|p| self.running.get_mut(p)) {
            Some(app) => app.as_mut(),
            None => &mut self.launcher,
        }
    }

    /// What is on the screen now.
    pub(crate) fn screen(&self) -> View {
        match &self.recents {
            Some(recents) => recents.clone(),
            None => self.front().screen(self.size()),
        }
    }

    /// The screen changed: the next dumps may catch it animating.
    fn changed(&mut self) {
        self.unsettled = self.config.unsettled_dumps;
    }

    pub(crate) fn app(&self, package: &str) -> Option<&AppInfo> {
        self.apps.iter().find(|a| a.package == package)
    }

    /// Brings `package` to the front, starting it when it is not running; false when it has
    /// no launcher activity.
    pub(crate) fn launch(&mut self, package: &str) -> bool {
        let Some(info) = self.app(package).filter(|a| a.activity.is_some()).cloned() else {
            return false;
        };
        self.recents = None;
        if package == apps::launcher::PACKAGE {
            self.home();
            return true;
        }
        if !self.running.contains_key(package) {
            let app = start_app(&info, &self.model);
            self.running.insert(package.to_owned(), app);
        }
        self.stack.retain(|p| p != package);
        self.stack.push(package.to_owned());
        self.changed();
        true
    }

    /// `am start -a android.intent.action.VIEW -d URL`: an http(s) link opens in the browser
    /// (started, in front); false when no app here opens it.
    pub(crate) fn view_url(&mut self, url: &str) -> bool {
        let web = url.starts_with("http://") || url.starts_with("https://");
        if !web || !self.launch(apps::browser::PACKAGE) {
            return false;
        }
        self.front_mut().view_url(url)
    }

    /// HOME: the launcher in front, the apps kept running.
    fn home(&mut self) {
        self.recents = None;
        self.stack.clear();
        self.changed();
    }

    /// BACK: the overlay closes, else the app in front goes back a screen, else it leaves.
    fn back(&mut self) {
        if self.recents.take().is_none() && !self.front_mut().back() {
            self.stack.pop();
        }
        self.changed();
    }

    /// APP_SWITCH: the recents overlay.
    fn recents(&mut self) {
        self.recents = view::parse(&android_fixture(RECENTS));
        self.changed();
    }

    /// `am force-stop`: the app's state is gone; the launcher comes to the front if it was
    /// there.
    pub(crate) fn force_stop(&mut self, package: &str) {
        self.running.remove(package);
        if self.stack.last().is_some_and(|p| p == package) {
            self.home();
        }
        self.stack.retain(|p| p != package);
    }

    fn apply(&mut self, effect: Effect) {
        match effect {
            Effect::Stay => {}
            Effect::Launch(package) => {
                self.launch(&package);
            }
        }
    }

    /// The focused window: the activity in front, or its dialog's title.
    fn focus(&self) -> (String, String, Option<String>) {
        if self.recents.is_some() {
            let (package, activity) = RECENTS_ACTIVITY;
            return (package.into(), activity.into(), None);
        }
        let package = self.foreground();
        let activity = self
            .app(&package)
            .and_then(|a| a.activity.clone())
            .unwrap_or_default();
        let dialog = match self.front().window() {
            Window::Dialog(title) => Some(title),
            Window::Activity => None,
        };
        (package, activity, dialog)
    }

    /// `uiautomator dump`'s XML, or the line it fails with.
    pub(crate) fn dump(&mut self) -> Result<String, &'static str> {
        if !self.awake {
            return Err("ERROR: null root node returned by UiTestAutomationBridge.\n");
        }
        if self.unsettled > 0 {
            self.unsettled -= 1;
            return Err("ERROR: could not get idle state.\n");
        }
        Ok(self.screen().dump())
    }

    /// How long a dump takes.
    pub(crate) fn dump_latency(&self) -> std::time::Duration {
        self.config.dump_latency
    }

    /// What `screencap -p` draws: the screen's views, none while it is off.
    pub(crate) fn screenshot(&self) -> (u32, u32, Option<View>) {
        let (w, h) = self.config.size;
        (w, h, self.awake.then(|| self.screen()))
    }

    /// Whether the screen is on.
    pub(crate) fn awake(&self) -> bool {
        self.awake
    }

    /// `stay_on_while_plugged_in`.
    pub(crate) fn stay_on(&self) -> u32 {
        self.stay_on
    }

    /// The current input method's id.
    pub(crate) fn current_ime(&self) -> String {
        self.ime.current.clone()
    }

    /// The text of the field `id` of a running app.
    pub(crate) fn field(&self, id: &str) -> Option<String> {
        self.running
            .values()
            .flat_map(|app| app.fields())
            .find(|f| f.id == id)
            .map(|f| f.text.clone())
    }

    /// The calculator's (formula, result) while it runs.
    pub(crate) fn calculator(&self) -> Option<(String, String)> {
        self.running.get("com.android.calculator2")?.display()
    }

    /// The installed packages.
    pub(crate) fn packages(&self) -> Vec<String> {
        self.apps.iter().map(|a| a.package.clone()).collect()
    }

    /// Types `text` into the focused field of the app in front (nowhere when none has the
    /// focus, as on a phone).
    fn type_text(&mut self, text: &str) {
        if let Some(field) = self.front_mut().focused_field() {
            field.text.push_str(text);
            self.changed();
        }
    }

    /// Empties the focused field (ADBKeyBoard's `ADB_CLEAR_TEXT`).
    fn clear_text(&mut self) {
        if let Some(field) = self.front_mut().focused_field() {
            field.text.clear();
            self.changed();
        }
    }

    /// DEL: the character before the cursor (the end) goes.
    fn delete_char(&mut self) {
        if let Some(field) = self.front_mut().focused_field() {
            field.text.pop();
            self.changed();
        }
    }
}

/// A reply printed on stdout with exit 0.
fn out(text: impl Into<String>) -> Reply {
    Reply::stdout(text.into().into_bytes())
}
