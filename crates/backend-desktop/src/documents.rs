//! Documents `launch_app` hands to an opener it does not know: an application that keeps one
//! process for many windows and opens documents through its own API (LibreOffice over UNO).
//! The desktop only asks whether a request is the opener's, lets it open, and waits for the
//! window it names; which program runs and how is the opener's business.

use futures::future::BoxFuture;

/// The window an opener opened: the process that shows it and its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenedWindow {
    /// The process whose window it is.
    pub pid: u32,
    /// The window's title.
    pub title: String,
}

/// Opens documents for `launch_app` (set with [`crate::DesktopServer::with_documents`]).
pub trait DocumentOpener: Send + Sync {
    /// Whether `launch_app {app, args}` is for this opener (a document path, or one of its
    /// application names).
    fn claims(&self, app: &str, args: &[String]) -> bool;

    /// Opens it on the desktop whose programs get `env`; answers the window to wait for, or a
    /// text for the model saying why not.
    fn open<'a>(
        &'a self,
        app: &'a str,
        args: &'a [String],
        env: &'a [(String, String)],
    ) -> BoxFuture<'a, Result<OpenedWindow, String>>;
}
