//! A browser (`com.android.chrome`, "Chrome"): what `am start -a android.intent.action.VIEW
//! -d URL` opens for an http(s) link — its address bar holds the URL and the page says which
//! one it shows.

use super::{App, Effect, Hit, STATUS_BAR, Size, activity};
use crate::adb_double::phone::view::{Rect, View};

/// Its package.
pub(crate) const PACKAGE: &str = "com.android.chrome";
/// The address bar's id.
pub(crate) const URL_BAR: &str = "com.android.chrome:id/url_bar";

/// The browser's state: the page it shows.
#[derive(Debug, Default)]
pub(crate) struct Browser {
    url: Option<String>,
}

impl App for Browser {
    fn screen(&self, size: Size) -> View {
        let w = size.width;
        let url = self.url.as_deref().unwrap_or("");
        let page = match &self.url {
            Some(url) => format!("Page at {url}"),
            None => "New tab".to_owned(),
        };
        activity(
            PACKAGE,
            size,
            vec![
                View::edit(
                    PACKAGE,
                    URL_BAR,
                    url,
                    "Search or type URL",
                    Rect::new(42, STATUS_BAR + 20, w - 42, STATUS_BAR + 130),
                ),
                View::new(
                    "android.widget.TextView",
                    PACKAGE,
                    Rect::new(42, STATUS_BAR + 200, w - 42, STATUS_BAR + 280),
                )
                .id("com.android.chrome:id/page")
                .text(&page),
            ],
        )
    }

    fn tap(&mut self, _hit: &Hit) -> Effect {
        Effect::Stay
    }

    fn back(&mut self) -> bool {
        self.url.take().is_some()
    }

    fn view_url(&mut self, url: &str) -> bool {
        self.url = Some(url.to_owned());
        true
    }
}
