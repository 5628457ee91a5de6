//! Settings (`com.android.settings`), laid out as the recorded Android 14 home
//! (`fixtures/android/settings-android14.xml`: the search bar, `main_content_scrollable_container`
//! around `recycler_view`, rows of `icon_frame` + `text_frame` with `android:id/title` and
//! `android:id/summary`), its first rows the recorded ones; the list is longer than the
//! screen — the rows after Storage show only once a vertical swipe scrolls it (by whole rows).
//! A row opens its page (its title, and for About phone the Android version); BACK or
//! "Navigate up" returns.

use super::{App, Effect, Hit, STATUS_BAR, Size, activity};
use crate::adb_double::phone::view::{Rect, View};

const PACKAGE: &str = "com.android.settings";
/// The scrollable list's id.
pub(crate) const LIST: &str = "com.android.settings:id/main_content_scrollable_container";
/// The rows: the recorded ones up to Storage, then the rest of an Android 14 Settings home.
const ROWS: [(&str, &str); 18] = [
    ("Account Holder", "Google services and preferences"),
    ("Network and Internet", "Mobile, Wi\u{2011}Fi, hotspot"),
    ("Connected devices", "Bluetooth, pairing"),
    ("Apps", "Assistant, recent apps, default apps"),
    ("Notifications", "Notification history, conversations"),
    ("Sound & vibration", "Volume and haptics"),
    ("Modes", "Do Not Disturb is active"),
    ("Display & touch", "Dark theme, font size, touch"),
    ("Wallpaper and style", "Colours, themed icons, app grid"),
    ("Storage", "41% used - 75.52 GB free"),
    ("Battery", "87%"),
    (
        "Security & privacy",
        "App security, device lock, permissions",
    ),
    ("Location", "On - 3 apps have access to location"),
    (
        "Passwords & accounts",
        "Saved passwords, autofill, synced accounts",
    ),
    (
        "Digital Wellbeing",
        "Screen time, app timers, bedtime schedules",
    ),
    ("Accessibility", "Display, interaction, audio"),
    ("System", "Languages, gestures, time, backup"),
    ("About phone", ""),
];
/// Where the list starts, the first row's top, a row's height and the distance between rows.
const LIST_TOP: i32 = 337;
const FIRST_ROW: i32 = 353;
const ROW_HEIGHT: i32 = 184;
const ROW_PITCH: i32 = 189;

/// Settings' state.
#[derive(Debug, Default)]
pub(crate) struct Settings {
    /// The phone's model (About phone's summary).
    model: String,
    /// The first row shown.
    offset: usize,
    /// The page a row opened.
    page: Option<usize>,
}

fn id(name: &str) -> String {
    format!("{PACKAGE}:id/{name}")
}

fn list_bottom(size: Size) -> i32 {
    size.height - 217
}

/// How many rows show whole.
fn rows_shown(size: Size) -> usize {
    ((list_bottom(size) - FIRST_ROW) / ROW_PITCH) as usize
}

fn row(title: &str, summary: &str, top: i32, size: Size, clip: &Rect) -> View {
    let w = size.width;
    let node = |class: &str, bounds: Rect| View::new(class, PACKAGE, bounds.clipped(clip));
    let chars = |s: &str| s.chars().count() as i32;
    node(
        "android.widget.LinearLayout",
        Rect::new(0, top, w, top + ROW_HEIGHT),
    )
    .clickable()
    .children(vec![
        node(
            "android.widget.LinearLayout",
            Rect::new(41, top + 41, 184, top + 143),
        )
        .id(&id("icon_frame"))
        .child(
            node(
                "android.widget.ImageView",
                Rect::new(82, top + 41, 184, top + 143),
            )
            .id("android:id/icon"),
        ),
        node(
            "android.widget.RelativeLayout",
            Rect::new(184, top + 5, w - 41, top + 178),
        )
        .id(&id("text_frame"))
        .children(vec![
            node(
                "android.widget.TextView",
                Rect::new(215, top + 46, 215 + 22 * chars(title), top + 93),
            )
            .id("android:id/title")
            .text(title),
            node(
                "android.widget.TextView",
                Rect::new(215, top + 93, 215 + 17 * chars(summary), top + 137),
            )
            .id("android:id/summary")
            .text(summary),
        ]),
    ])
}

impl Settings {
    pub(crate) fn new(model: &str) -> Settings {
        Settings {
            model: model.to_owned(),
            ..Settings::default()
        }
    }

    /// Row `i`'s title and summary.
    fn row_text(&self, i: usize) -> (&str, &str) {
        let (title, summary) = ROWS[i];
        (
            title,
            if summary.is_empty() {
                &self.model
            } else {
                summary
            },
        )
    }

    fn home(&self, size: Size) -> View {
        let w = size.width;
        let list = Rect::new(0, LIST_TOP, w, list_bottom(size));
        let rows = (self.offset..ROWS.len())
            .map(|i| {
                let top = FIRST_ROW + (i - self.offset) as i32 * ROW_PITCH;
                let (title, summary) = self.row_text(i);
                (top, title, summary)
            })
            .take_while(|(top, ..)| *top < list.bottom)
            .map(|(top, title, summary)| row(title, summary, top, size, &list))
            .collect();
        let search = View::new(
            "android.widget.LinearLayout",
            PACKAGE,
            Rect::new(41, 133, w - 41, 317),
        )
        .id(&id("search_action_bar"))
        .clickable()
        .child(
            View::new(
                "android.widget.TextView",
                PACKAGE,
                Rect::new(183, 193, 503, 256),
            )
            .id(&id("search_bar_title"))
            .text("Search Settings"),
        );
        let app_bar = View::new(
            "android.widget.LinearLayout",
            PACKAGE,
            Rect::new(0, 0, w, LIST_TOP),
        )
        .id(&id("app_bar"))
        .child(search);
        let recycler = View::new("androidx.recyclerview.widget.RecyclerView", PACKAGE, list)
            .id(&id("recycler_view"))
            .children(rows);
        let scroller = View::new("android.widget.ScrollView", PACKAGE, list)
            .id(LIST)
            .scrollable()
            .child(recycler);
        activity(
            PACKAGE,
            size,
            vec![
                View::new(
                    "android.widget.ScrollView",
                    PACKAGE,
                    Rect::new(0, 0, w, list.bottom),
                )
                .id(&id("settings_homepage_container"))
                .children(vec![app_bar, scroller]),
            ],
        )
    }

    fn page(&self, size: Size, index: usize) -> View {
        let (title, summary) = self.row_text(index);
        let w = size.width;
        let bar = STATUS_BAR;
        let mut content = vec![
            View::new(
                "android.widget.ImageButton",
                PACKAGE,
                Rect::new(0, bar, 147, bar + 147),
            )
            .desc("Navigate up")
            .clickable(),
            View::new(
                "android.widget.TextView",
                PACKAGE,
                Rect::new(42, bar + 200, w - 42, bar + 300),
            )
            .id(&id("collapsing_toolbar"))
            .text(title),
        ];
        let lines: &[(&str, &str)] = if title == "About phone" {
            &[("Model", summary), ("Android version", "14")]
        } else {
            &[(title, summary)]
        };
        let clip = Rect::new(0, 0, w, size.height);
        for (i, (line_title, line_summary)) in lines.iter().enumerate() {
            content.push(row(
                line_title,
                line_summary,
                bar + 350 + i as i32 * ROW_PITCH,
                size,
                &clip,
            ));
        }
        activity(PACKAGE, size, content)
    }
}

impl App for Settings {
    fn screen(&self, size: Size) -> View {
        match self.page {
            Some(index) => self.page(size, index),
            None => self.home(size),
        }
    }

    fn tap(&mut self, hit: &Hit) -> Effect {
        if self.page.is_some() {
            if hit.says("Navigate up") {
                self.page = None;
            }
            return Effect::Stay;
        }
        if let Some(index) = ROWS.iter().position(|(title, _)| hit.says(title)) {
            self.page = Some(index);
        }
        Effect::Stay
    }

    fn back(&mut self) -> bool {
        self.page.take().is_some()
    }

    fn scroll(&mut self, id: &str, dy: i32, size: Size) -> bool {
        if id != LIST || self.page.is_some() {
            return false;
        }
        let rows = (dy as f64 / ROW_PITCH as f64).round() as i64;
        let rows = if rows == 0 { dy.signum() as i64 } else { rows };
        // the most the list scrolls: its last row shown whole at the bottom
        let most = ROWS.len().saturating_sub(rows_shown(size)) as i64;
        let offset = (self.offset as i64 + rows).clamp(0, most) as usize;
        let moved = offset != self.offset;
        self.offset = offset;
        moved
    }
}
