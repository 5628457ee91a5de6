//! An app with one screen and nothing to do on it: Contacts with no contacts, and every app
//! `pm install` adds (its package as its title).

use super::{App, Effect, Hit, STATUS_BAR, Size, activity, title_bar};
use crate::adb_double::phone::view::{Rect, View};

/// A one-screen app.
#[derive(Debug)]
pub(crate) struct Plain {
    package: String,
    title: String,
    line: String,
}

impl Plain {
    pub(crate) fn new(package: &str, title: &str, line: &str) -> Plain {
        Plain {
            package: package.to_owned(),
            title: title.to_owned(),
            line: line.to_owned(),
        }
    }
}

impl App for Plain {
    fn screen(&self, size: Size) -> View {
        let top = STATUS_BAR + 300;
        activity(
            &self.package,
            size,
            vec![
                title_bar(&self.package, size, &self.title),
                View::new(
                    "android.widget.TextView",
                    &self.package,
                    Rect::new(42, top, size.width - 42, top + 80),
                )
                .text(&self.line),
            ],
        )
    }

    fn tap(&mut self, _hit: &Hit) -> Effect {
        Effect::Stay
    }
}
