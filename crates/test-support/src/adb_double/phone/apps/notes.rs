//! A notes app in Chinese (`com.example.notes`, "记事本"): one `EditText` for the note and a
//! 保存 (save) button that says 已保存 (saved) — where Chinese typing is checked.

use super::{App, Effect, Field, Hit, STATUS_BAR, Size, activity, title_bar};
use crate::adb_double::phone::view::{Rect, View};

const PACKAGE: &str = "com.example.notes";
/// The note field's id.
pub(crate) const NOTE: &str = "com.example.notes:id/note";
const SAVE: &str = "com.example.notes:id/save";

/// The notes app's state.
#[derive(Debug)]
pub(crate) struct Notes {
    note: Field,
    focused: bool,
    saved: bool,
}

impl Default for Notes {
    fn default() -> Self {
        Notes {
            note: Field::new(NOTE, "写点什么…"),
            focused: false,
            saved: false,
        }
    }
}

impl App for Notes {
    fn screen(&self, size: Size) -> View {
        let w = size.width;
        let top = STATUS_BAR + 200;
        let mut content = vec![
            title_bar(PACKAGE, size, "记事本"),
            self.note
                .view(PACKAGE, Rect::new(42, top, w - 42, top + 600), self.focused),
            View::new(
                "android.widget.Button",
                PACKAGE,
                Rect::new(42, top + 640, w / 2, top + 766),
            )
            .id(SAVE)
            .text("保存")
            .clickable(),
        ];
        if self.saved {
            content.push(
                View::new(
                    "android.widget.TextView",
                    PACKAGE,
                    Rect::new(w / 2 + 20, top + 660, w - 42, top + 746),
                )
                .id("com.example.notes:id/status")
                .text("已保存"),
            );
        }
        activity(PACKAGE, size, content)
    }

    fn tap(&mut self, hit: &Hit) -> Effect {
        if hit.is(NOTE) {
            self.focused = true;
        } else if hit.is(SAVE) {
            self.saved = true;
        }
        Effect::Stay
    }

    fn fields(&self) -> Vec<&Field> {
        vec![&self.note]
    }

    fn focused_field(&mut self) -> Option<&mut Field> {
        self.saved = false;
        self.focused.then_some(&mut self.note)
    }
}
