//! A platform `AlertDialog` as uiautomator dumps it: its window alone (the active one),
//! centred, with the framework's ids (`android:id/alertTitle`, `message`, `button1` the
//! positive button, `button2` the negative one).

use super::Size;
use crate::adb_double::phone::view::{Rect, View};

/// The positive button's id.
pub(crate) const OK: &str = "android:id/button1";
/// The negative button's id.
pub(crate) const CANCEL: &str = "android:id/button2";

/// An open dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dialog {
    pub(crate) title: String,
    pub(crate) message: String,
    pub(crate) ok: String,
    pub(crate) cancel: String,
}

impl Dialog {
    /// Its window in `package`, centred on a `size` screen.
    pub(crate) fn view(&self, package: &str, size: Size) -> View {
        let (left, right) = (77, size.width - 77);
        let top = size.height / 2 - 260;
        let bottom = size.height / 2 + 260;
        let frame = Rect::new(left, top, right, bottom);
        let node = |class: &str, bounds: Rect| View::new(class, package, bounds);
        let title = node(
            "android.widget.TextView",
            Rect::new(left + 63, top + 63, right - 63, top + 137),
        )
        .id("android:id/alertTitle")
        .text(&self.title);
        let message = node(
            "android.widget.TextView",
            Rect::new(left + 63, top + 158, right - 63, top + 300),
        )
        .id("android:id/message")
        .text(&self.message);
        let buttons_top = bottom - 158;
        let button = |id: &str, text: &str, l: i32, r: i32| {
            node(
                "android.widget.Button",
                Rect::new(l, buttons_top + 21, r, bottom - 21),
            )
            .id(id)
            .text(text)
            .clickable()
        };
        node("android.widget.FrameLayout", frame).child(
            node("android.widget.FrameLayout", frame)
                .id("android:id/content")
                .child(
                    node("android.widget.LinearLayout", frame)
                        .id("android:id/parentPanel")
                        .children(vec![
                            node(
                                "android.widget.LinearLayout",
                                Rect::new(left, top, right, top + 158),
                            )
                            .id("android:id/topPanel")
                            .child(title),
                            node(
                                "android.widget.FrameLayout",
                                Rect::new(left, top + 158, right, buttons_top),
                            )
                            .id("android:id/contentPanel")
                            .child(message),
                            node(
                                "android.widget.ScrollView",
                                Rect::new(left, buttons_top, right, bottom),
                            )
                            .id("android:id/buttonPanel")
                            .children(vec![
                                button(CANCEL, &self.cancel, right - 520, right - 280),
                                button(OK, &self.ok, right - 260, right - 42),
                            ]),
                        ]),
                ),
        )
    }
}
