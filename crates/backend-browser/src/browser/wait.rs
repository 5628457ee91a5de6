//! Finding and waiting for controls (`find_controls`, `wait_for_control`): the selected tab's
//! listing for the matcher, and a wait that lists the tab again each time it changed — the page
//! agent's `changed` wakes on DOM mutations, loads and field events in the document, its open
//! shadow roots and same-origin frames; cross-origin frames watch through their own sessions;
//! a navigation ends the old document's watch — until the caller's condition holds.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use deft_protocol::observation::ListingOptions;
use futures::future::{BoxFuture, FutureExt};
use serde_json::{Value, json};

use super::listing::Listing;
use super::{Browser, BrowserError, Result};

/// The longest one watch runs in the page before it is renewed (below the CDP call limit).
const WATCH_CAP: Duration = Duration::from_secs(20);

/// Names each wait's watches in the pages, so a wait renews and ends only its own.
static NEXT_WATCH: AtomicU64 = AtomicU64::new(1);

/// How a wait ended.
#[derive(Debug)]
pub(crate) enum Waited {
    /// The condition held on this listing.
    Met(Listing),
    /// The time ran out; the latest listing, if one could be taken.
    TimedOut(Option<Listing>),
    /// The caller cancelled.
    Cancelled,
}

/// What one round of the wait saw.
enum Round {
    Met(Listing),
    /// Not yet: the listing, and the watch marks to wait from.
    Not(Listing, Vec<(String, Value)>),
    /// The page could not be listed now (a document coming or going).
    Unlisted,
}

impl Browser {
    /// A listing of the selected tab for the matcher: every control with its id (good for
    /// actions) and nesting depth. It marks nothing new and leaves the next listing's `*` marks
    /// as they were.
    pub(crate) async fn match_listing(&self) -> Result<Listing> {
        self.list(&ListingOptions::default(), false).await
    }

    /// Lists the selected tab until `met` holds for a listing, `timeout` passes or `cancel`
    /// resolves. Between listings it waits for the page to change, never for a fixed time.
    /// Errors: no tab, a dialog open or opening, a tab gone.
    pub(crate) async fn wait_until(
        &self,
        met: impl Fn(&Listing) -> bool,
        timeout: Duration,
        cancel: impl Future<Output = ()>,
    ) -> Result<Waited> {
        let token = NEXT_WATCH.fetch_add(1, Ordering::Relaxed);
        let mut watched = BTreeSet::new();
        let out = self
            .watch(&met, Instant::now() + timeout, cancel, token, &mut watched)
            .await;
        // However the wait ended (an error too), its watches still running in the page end.
        self.unwatch(&watched, token);
        out
    }

    /// [`Browser::wait_until`]'s rounds until `deadline`, remembering the sessions watched.
    async fn watch(
        &self,
        met: &impl Fn(&Listing) -> bool,
        deadline: Instant,
        cancel: impl Future<Output = ()>,
        token: u64,
        watched: &mut BTreeSet<String>,
    ) -> Result<Waited> {
        let mut cancel = std::pin::pin!(cancel);
        let mut latest = None;
        loop {
            let (_, page) = self.current()?;
            let mut events = self.cdp().events();
            let marks = match self.round(&page, met).await? {
                Round::Met(l) => return Ok(Waited::Met(l)),
                Round::Not(l, marks) => {
                    latest = Some(l);
                    marks
                }
                Round::Unlisted => Vec::new(),
            };
            let now = Instant::now();
            if now >= deadline {
                return Ok(Waited::TimedOut(latest));
            }
            watched.extend(marks.iter().map(|(s, _)| s.clone()));
            let cap = (deadline - now).min(WATCH_CAP);
            let wake: BoxFuture<'_, Result<()>> = if marks.is_empty() {
                // Nothing to watch in the page: the next event of the tab's session (a
                // document committing, loading) is the next moment to look.
                Box::pin(page_event(&mut events, &page).map(Ok))
            } else {
                Box::pin(self.changed(&marks, cap, token))
            };
            tokio::select! {
                r = wake => r?,
                () = &mut cancel => return Ok(Waited::Cancelled),
                () = tokio::time::sleep_until(deadline.into()) => {}
            }
        }
    }

    /// One look: the watch marks of the tab's sessions (before the listing, so a change while it
    /// is taken is not missed), the listing, and whether `met` holds once the tab's document is
    /// parsed.
    async fn round(&self, page: &str, met: &impl Fn(&Listing) -> bool) -> Result<Round> {
        let mut sessions = vec![page.to_owned()];
        sessions.extend(self.child_frames(page));
        // Both at once: a session runs its calls in the order sent, so the marks come first.
        let (marks, listing) = futures::join!(
            futures::future::join_all(sessions.iter().map(|s| self.eval(s, "__deft.watchMark()"))),
            self.match_listing()
        );
        let mut kept = Vec::new();
        for (s, m) in sessions.into_iter().zip(marks) {
            match m {
                Ok(v) => kept.push((s, v)),
                // A dialog blocks the page: the model must answer it first.
                Err(e @ BrowserError::Model(_)) => return Err(e),
                Err(e) => tracing::debug!("no watch mark in session {s}: {e}"),
            }
        }
        let Some((_, mark)) = kept.iter().find(|(s, _)| s == page) else {
            return Ok(Round::Unlisted);
        };
        // A document still being parsed has not shown all it has, and its scripts may not
        // have run: it is looked at again when it is (its `readystatechange` wakes the watch).
        let parsing = mark[2] == true;
        match listing {
            Ok(l) if !parsing && met(&l) => Ok(Round::Met(l)),
            Ok(l) => Ok(Round::Not(l, kept)),
            Err(e @ BrowserError::Cdp(_)) => {
                tracing::debug!("the tab could not be listed now: {e}");
                Ok(Round::Unlisted)
            }
            Err(e) => Err(e),
        }
    }

    /// Resolves at the first change after `marks` in any of their sessions (or after `cap`).
    /// A session whose watch fails (its document went away) counts as changed; a dialog is an
    /// error.
    async fn changed(&self, marks: &[(String, Value)], cap: Duration, token: u64) -> Result<()> {
        let watches = marks.iter().map(|(s, mark)| {
            let call = format!("__deft.changed({mark}, {}, {token})", cap.as_millis());
            Box::pin(async move { self.eval(s, &call).await })
        });
        let (r, _, _) = futures::future::select_all(watches).await;
        match r {
            Err(e @ BrowserError::Model(_)) => Err(e),
            Err(e) => {
                tracing::debug!("a watch ended with its document: {e}");
                Ok(())
            }
            Ok(_) => Ok(()),
        }
    }

    /// Ends the wait's watches still running in `sessions` (without waiting for the answers).
    fn unwatch(&self, sessions: &BTreeSet<String>, token: u64) {
        for s in sessions {
            let expression = format!("window.__deft && __deft.unwatch({token})");
            if let Err(e) = self.cdp().send(
                Some(s),
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
            ) {
                tracing::debug!("watch {token} not ended in {s}: {e}");
            }
        }
    }
}

/// Resolves at the next event of CDP session `session`.
async fn page_event(
    events: &mut tokio::sync::broadcast::Receiver<crate::cdp::CdpEvent>,
    session: &str,
) {
    loop {
        match events.recv().await {
            Ok(e) if e.session.as_deref() == Some(session) => return,
            Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                std::future::pending::<()>().await;
            }
        }
    }
}
