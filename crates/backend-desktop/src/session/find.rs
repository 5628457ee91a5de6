//! Waiting for a control (`wait_for_control`, docs/observation.md "Finding controls"): the
//! selected window's controls are matched again each time its application sends an AT-SPI
//! event — never on a timer — so the wait answers the moment the selector picks a control (or,
//! waiting for it to go, picks none any more). The controls are those a listing gives, with the
//! same ids (`DesktopSession::window_controls`), and the walk cache keeps each look cheap: property
//! events patch the cached walk, structure events walk the window again.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use atspi::State;
use deft_protocol::found;
use deft_protocol::selector::{self, Found, MatchOptions, Selector};
use serde_json::Value;
use tokio::sync::watch;

use super::{Connected, DesktopSession, Look, WindowEntry};
use crate::a11y;
use crate::error::{ToolError, ToolResult};
use crate::events::Since;
use crate::texts;

/// How a wait ended.
#[derive(Debug, Clone, PartialEq)]
pub enum WaitAnswer {
    /// The control is there (or, waiting for it to go, no control is picked any more): the
    /// answer of `deft_protocol::found::wait_result`.
    Answered(Value),
    /// The time ran out: the error text of `deft_protocol::found::wait_timeout_text`.
    TimedOut(String),
}

/// The matcher on a look at the window; a selector the tool checked cannot fail here, but if
/// it does the model reads every problem.
fn find_in<'a>(look: &'a Look, selector: &Selector) -> ToolResult<Found<'a>> {
    selector::find(
        &look.controls,
        &look.depths,
        selector,
        &MatchOptions::default(),
    )
    .map_err(|e| ToolError::model(texts::bad_selector(&e.0)))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Counts one wait in [`DesktopSession::waits_in_flight`] while it lives (a cancelled call drops
/// it).
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl DesktopSession {
    /// How many [`DesktopSession::wait_for`] waits run now.
    pub fn waits_in_flight(&self) -> usize {
        self.waits.load(Ordering::SeqCst)
    }

    /// Waits up to `timeout` until `selector` picks a control of the selected window, or with
    /// `gone` until it picks none (a window that closed picks none). Looks again only when the
    /// window's application sent an event since the last look. A window that closes while a
    /// control is awaited fails at once with the window's text.
    pub async fn wait_for(
        &self,
        selector: &Selector,
        timeout: Duration,
        gone: bool,
    ) -> ToolResult<WaitAnswer> {
        let _counted = Waiting::new(&self.waits);
        let started = Instant::now();
        let deadline = started + timeout;
        let window = self.selected().await?;
        let c = self.connected().await?;
        if !c.watching {
            return Err(ToolError::model(texts::NO_EVENTS_TO_WAIT_ON));
        }
        let mut arrivals = c.events.subscribe();
        loop {
            arrivals.borrow_and_update();
            let seen = c.events.generation();
            let look = match self.window_controls_of(&window).await {
                Ok(look) => Some(look),
                Err(_) if gone && !window_open(&c, &window).await => None,
                Err(e) => return Err(e),
            };
            let found = look.as_ref().map(|l| find_in(l, selector)).transpose()?;
            let picked = found.as_ref().and_then(Found::chosen_match);
            if picked.is_some() != gone {
                let tie = found.as_ref().and_then(found::tie_note).filter(|_| !gone);
                let answer = found::wait_result(picked, tie, millis(started.elapsed()));
                return Ok(WaitAnswer::Answered(answer));
            }
            // A look that ended past the deadline is the last one, however busy the app is.
            if Instant::now() >= deadline
                || !next_event_from(&c, &mut arrivals, &window.key.bus, seen, deadline).await
            {
                let still_there = if gone { picked } else { None };
                return Ok(WaitAnswer::TimedOut(found::wait_timeout_text(
                    selector,
                    timeout.as_secs_f64(),
                    still_there,
                )));
            }
        }
    }
}

/// Whether the window's accessible object still answers and is not defunct.
async fn window_open(c: &Connected, window: &WindowEntry) -> bool {
    a11y::states(&c.a11y, &window.key)
        .await
        .is_ok_and(|s| !s.contains(State::Defunct))
}

/// Sleeps until the application on connection `bus` sends an event after event `seen` (true),
/// or until `deadline` (false). Other applications' events wake it but do not end the sleep;
/// events dropped from the log count as the application's (they may have been).
async fn next_event_from(
    c: &Connected,
    arrivals: &mut watch::Receiver<u64>,
    bus: &str,
    mut seen: u64,
    deadline: Instant,
) -> bool {
    loop {
        match c.events.since(seen) {
            Since::Lost => return true,
            Since::Events(events) => {
                if events.iter().any(|e| e.source.bus == bus) {
                    return true;
                }
                if let Some(last) = events.last() {
                    seen = last.seq;
                }
            }
        }
        tokio::select! {
            changed = arrivals.changed() => {
                // The log lives as long as the connection: a closed channel cannot happen,
                // but would mean no event ever comes.
                if changed.is_err() {
                    tokio::time::sleep_until(deadline.into()).await;
                    return false;
                }
            }
            () = tokio::time::sleep_until(deadline.into()) => return false,
        }
    }
}
