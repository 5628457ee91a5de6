//! The home screen (`com.android.launcher3`, Launcher3's ids: `drag_layer`, `workspace`,
//! `hotseat`): one icon per app with a launcher activity, a `TextView` named by the app's
//! label; a tap on one opens the app.

use super::{App, Effect, Hit, STATUS_BAR, Size, activity};
use crate::adb_double::phone::view::{Rect, View};

/// The launcher's package.
pub(crate) const PACKAGE: &str = "com.android.launcher3";
/// Icons per row of the workspace.
const COLUMNS: i32 = 4;

/// The launcher's state: the icons it shows, (label, package).
#[derive(Debug, Default)]
pub(crate) struct Launcher {
    pub(crate) icons: Vec<(String, String)>,
}

fn id(name: &str) -> String {
    format!("{PACKAGE}:id/{name}")
}

fn icon(label: &str, bounds: Rect) -> View {
    View::new("android.widget.TextView", PACKAGE, bounds)
        .text(label)
        .desc(label)
        .clickable()
        .long_clickable()
}

impl App for Launcher {
    fn screen(&self, size: Size) -> View {
        let cell_w = size.width / COLUMNS;
        let cell_h = 300;
        let hotseat_top = size.height - 400;
        let icons = self
            .icons
            .iter()
            .enumerate()
            .map(|(i, (label, _))| {
                let (col, row) = (i as i32 % COLUMNS, i as i32 / COLUMNS);
                let top = STATUS_BAR + 300 + row * cell_h;
                icon(
                    label,
                    Rect::new(col * cell_w, top, (col + 1) * cell_w, top + cell_h - 20),
                )
            })
            .collect();
        let workspace_area = Rect::new(0, STATUS_BAR, size.width, hotseat_top);
        let workspace = View::new("android.widget.ScrollView", PACKAGE, workspace_area)
            .id(&id("workspace"))
            .scrollable()
            .child(
                View::new("android.view.ViewGroup", PACKAGE, workspace_area).child(
                    View::new("android.view.ViewGroup", PACKAGE, workspace_area).children(icons),
                ),
            );
        let hotseat = View::new(
            "android.view.ViewGroup",
            PACKAGE,
            Rect::new(0, hotseat_top, size.width, size.height - 100),
        )
        .id(&id("hotseat"));
        let mut root = activity(PACKAGE, size, Vec::new());
        let whole = Rect::new(0, 0, size.width, size.height);
        root.children = vec![
            View::new("android.widget.FrameLayout", PACKAGE, whole)
                .id(&id("drag_layer"))
                .children(vec![workspace, hotseat]),
        ];
        root
    }

    fn tap(&mut self, hit: &Hit) -> Effect {
        match self.icons.iter().find(|(label, _)| hit.says(label)) {
            Some((_, package)) => Effect::Launch(package.clone()),
            None => Effect::Stay,
        }
    }
}
