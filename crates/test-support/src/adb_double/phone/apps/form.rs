//! A form app (`com.example.form`): two `EditText`s, name and city, with hints; a tap focuses
//! one and typed text goes there; Submit opens an `AlertDialog` "Saved" (OK / Cancel) that OK,
//! Cancel or BACK close.

use super::dialog::{self, Dialog};
use super::{App, Effect, Field, Hit, STATUS_BAR, Size, Window, activity, title_bar};
use crate::adb_double::phone::view::{Rect, View};

const PACKAGE: &str = "com.example.form";
/// The name field's id.
pub(crate) const NAME: &str = "com.example.form:id/name";
/// The city field's id.
pub(crate) const CITY: &str = "com.example.form:id/city";
const SUBMIT: &str = "com.example.form:id/submit";

/// The form's state.
#[derive(Debug)]
pub(crate) struct Form {
    fields: [Field; 2],
    focus: Option<usize>,
    dialog: Option<Dialog>,
}

impl Default for Form {
    fn default() -> Self {
        Form {
            fields: [Field::new(NAME, "Your name"), Field::new(CITY, "Your city")],
            focus: None,
            dialog: None,
        }
    }
}

impl App for Form {
    fn screen(&self, size: Size) -> View {
        if let Some(dialog) = &self.dialog {
            return dialog.view(PACKAGE, size);
        }
        let w = size.width;
        let mut content = vec![title_bar(PACKAGE, size, "Sign up")];
        let mut top = STATUS_BAR + 200;
        for (i, (field, label)) in self.fields.iter().zip(["Name", "City"]).enumerate() {
            content.push(
                View::new(
                    "android.widget.TextView",
                    PACKAGE,
                    Rect::new(42, top, w / 2, top + 60),
                )
                .text(label),
            );
            let bounds = Rect::new(42, top + 70, w - 42, top + 196);
            content.push(field.view(PACKAGE, bounds, self.focus == Some(i)));
            top += 260;
        }
        content.push(
            View::new(
                "android.widget.Button",
                PACKAGE,
                Rect::new(42, top + 40, w - 42, top + 166),
            )
            .id(SUBMIT)
            .text("Submit")
            .clickable(),
        );
        activity(PACKAGE, size, content)
    }

    fn window(&self) -> Window {
        match &self.dialog {
            Some(d) => Window::Dialog(d.title.clone()),
            None => Window::Activity,
        }
    }

    fn tap(&mut self, hit: &Hit) -> Effect {
        if self.dialog.is_some() {
            if hit.is(dialog::OK) || hit.is(dialog::CANCEL) {
                self.dialog = None;
            }
            return Effect::Stay;
        }
        if let Some(i) = self.fields.iter().position(|f| hit.is(&f.id)) {
            self.focus = Some(i);
        } else if hit.is(SUBMIT) {
            let [name, city] = &self.fields;
            self.dialog = Some(Dialog {
                title: "Saved".into(),
                message: format!("Name: {}, city: {}", name.text, city.text),
                ok: "OK".into(),
                cancel: "Cancel".into(),
            });
        }
        Effect::Stay
    }

    fn back(&mut self) -> bool {
        self.dialog.take().is_some()
    }

    fn fields(&self) -> Vec<&Field> {
        self.fields.iter().collect()
    }

    fn focused_field(&mut self) -> Option<&mut Field> {
        if self.dialog.is_some() {
            return None;
        }
        self.fields.get_mut(self.focus?)
    }
}
