//! The simulated phone's apps, each a state machine that draws its current screen as a view
//! tree and reacts to what lands on it: a tap on one of its views (by resource id or text),
//! a vertical swipe on a list, BACK, text typed into its focused field.

pub(crate) mod browser;
mod calculator;
mod dialog;
mod form;
pub(crate) mod launcher;
mod notes;
mod plain;
mod settings;

pub(crate) use browser::Browser;
pub(crate) use calculator::Calculator;
pub(crate) use form::Form;
pub(crate) use launcher::Launcher;
pub(crate) use notes::Notes;
pub(crate) use plain::Plain;
pub(crate) use settings::Settings;

use super::view::{Rect, View};

/// The screen size apps lay themselves out in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Size {
    pub(crate) width: i32,
    pub(crate) height: i32,
}

/// The height of the status bar an app's content starts below.
pub(crate) const STATUS_BAR: i32 = 110;

/// What a tap landed on: the view hit and the words inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Its resource id.
    pub(crate) id: String,
    /// Its class.
    pub(crate) class: String,
    /// Its own text and description, then those of the views inside it.
    pub(crate) texts: Vec<String>,
}

impl Hit {
    pub(crate) fn of(view: &View) -> Hit {
        Hit {
            id: view.id.clone(),
            class: view.class.clone(),
            texts: view.texts(),
        }
    }

    /// Whether it is the view `id` (a full resource id).
    pub(crate) fn is(&self, id: &str) -> bool {
        self.id == id
    }

    /// Whether one of its words is `text`.
    pub(crate) fn says(&self, text: &str) -> bool {
        self.texts.iter().any(|t| t == text)
    }
}

/// What a tap made the phone do beyond the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Nothing left the app.
    Stay,
    /// Opens the app of this package (a launcher icon).
    Launch(String),
}

/// An editable field of an app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// Its full resource id.
    pub(crate) id: String,
    /// What it holds.
    pub(crate) text: String,
    /// What it shows while empty.
    pub(crate) hint: String,
}

impl Field {
    pub(crate) fn new(id: &str, hint: &str) -> Field {
        Field {
            id: id.to_owned(),
            text: String::new(),
            hint: hint.to_owned(),
        }
    }

    /// Its `EditText` at `bounds`, focused or not.
    pub(crate) fn view(&self, package: &str, bounds: Rect, focused: bool) -> View {
        let mut edit = View::edit(package, &self.id, &self.text, &self.hint, bounds);
        edit.focused = focused;
        edit
    }
}

/// The window that has the focus in an app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Window {
    /// The activity (its short name, `.Main`).
    Activity,
    /// A dialog with this title.
    Dialog(String),
}

/// One app of the simulated phone.
pub(crate) trait App: Send {
    /// Its current screen (a dialog's window alone while one is open: uiautomator dumps the
    /// active window).
    fn screen(&self, size: Size) -> View;
    /// Which of its windows has the focus.
    fn window(&self) -> Window {
        Window::Activity
    }
    /// A tap on one of its views.
    fn tap(&mut self, hit: &Hit) -> Effect;
    /// BACK: true when the app handled it (closed a dialog, went up a screen); false when it
    /// is at its first screen and the phone leaves it.
    fn back(&mut self) -> bool {
        false
    }
    /// A vertical swipe of `dy` pixels (positive: the finger moved up) on its scrollable view
    /// `id`; true when something moved.
    fn scroll(&mut self, _id: &str, _dy: i32, _size: Size) -> bool {
        false
    }
    /// Its fields.
    fn fields(&self) -> Vec<&Field> {
        Vec::new()
    }
    /// The field that has the focus, where typed text goes.
    fn focused_field(&mut self) -> Option<&mut Field> {
        None
    }
    /// A link opened in it (`am start -a android.intent.action.VIEW -d URL`); false when it
    /// does not open links.
    fn view_url(&mut self, _url: &str) -> bool {
        false
    }
    /// The calculator's display (formula, result), for the calculator.
    fn display(&self) -> Option<(String, String)> {
        None
    }
}

/// An activity's window around `content`: the decor `FrameLayout`, its `LinearLayout` and
/// `android:id/content`, as every activity dump starts.
pub(crate) fn activity(package: &str, size: Size, content: Vec<View>) -> View {
    let whole = Rect::new(0, 0, size.width, size.height);
    View::new("android.widget.FrameLayout", package, whole).child(
        View::new("android.widget.LinearLayout", package, whole).child(
            View::new("android.widget.FrameLayout", package, whole)
                .id("android:id/content")
                .children(content),
        ),
    )
}

/// A title bar with `title` at the top of an app (the activity's action bar).
pub(crate) fn title_bar(package: &str, size: Size, title: &str) -> View {
    let bar = Rect::new(0, STATUS_BAR, size.width, STATUS_BAR + 147);
    View::new("android.view.ViewGroup", package, bar)
        .id("android:id/action_bar")
        .child(
            View::new(
                "android.widget.TextView",
                package,
                Rect::new(42, bar.top + 40, size.width / 2, bar.bottom - 40),
            )
            .text(title),
        )
}
