//! The desktop's clipboard: the X `CLIPBOARD` selection of the desktop's display, set and read
//! as applications do (ICCCM). Setting makes this session the selection's owner: a thread of
//! its own, on a connection of its own with a small unmapped window, answers every
//! application's `SelectionRequest` (`TARGETS`, `UTF8_STRING`, `TEXT`, `STRING`) for as long as
//! the device session lives, or until another application copies (`SelectionClear`). Reading
//! asks the owner to convert the selection into a property of that window, through the same
//! thread (so reading what this session set goes through X too), including the incremental
//! (`INCR`) transfers large selections use.
//!
//! Calls block for a round trip or a transfer; the tools run them off the async runtime.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use deft_protocol::tool_args::ClipboardArgs;
use parking_lot::Mutex;
use rmcp::model::CallToolResult;
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::Event;
use x11rb::protocol::xproto::{
    Atom, AtomEnum, ClientMessageEvent, ConnectionExt, CreateWindowAux, EventMask, PropMode,
    Property, SELECTION_NOTIFY_EVENT, SelectionNotifyEvent, SelectionRequestEvent, Window,
    WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;
use x11rb::{CURRENT_TIME, NONE};

use crate::texts;

/// How long a read waits for the owner of the clipboard to answer (and for each part of an
/// incremental transfer).
const OWNER_WAIT: Duration = Duration::from_secs(5);

/// How often [`Clipboard::await_handover`] looks at the selection's owner.
const HANDOVER_POLL: Duration = Duration::from_millis(10);

/// Why a clipboard call failed; the text is the model's.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ClipboardError(pub String);

fn x_failed(e: impl std::fmt::Display) -> ClipboardError {
    ClipboardError(texts::clipboard_x_failed(&e.to_string()))
}

/// What a read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// The clipboard's text.
    Text(String),
    /// Nothing owns the clipboard.
    Empty,
    /// The owner offers no text; the targets it offers.
    NotText(Vec<String>),
}

/// The atoms the clipboard uses.
#[derive(Debug, Clone, Copy)]
struct Atoms {
    clipboard: Atom,
    targets: Atom,
    utf8: Atom,
    text: Atom,
    incr: Atom,
    /// The property of our window a read's conversion lands in.
    landing: Atom,
    /// The ClientMessage type that ends the thread.
    quit: Atom,
}

/// The connection, its window and the state the serving thread and the callers share.
struct Shared {
    conn: RustConnection,
    window: Window,
    atoms: Atoms,
    /// The text served while this session owns the clipboard.
    owned: Mutex<Option<String>>,
    /// The read in progress: where the thread forwards the events for our window.
    waiter: Mutex<Option<mpsc::Sender<Event>>>,
    /// One read at a time (they share the landing property).
    reading: Mutex<()>,
    /// The serving thread runs (false once its connection failed or it was told to quit).
    alive: AtomicBool,
}

/// The clipboard of one device session; the thread starts on first use and ends when this is
/// dropped.
pub struct Clipboard {
    display: String,
    shared: Mutex<Option<Arc<Shared>>>,
}

impl std::fmt::Debug for Clipboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clipboard")
            .field("display", &self.display)
            .finish_non_exhaustive()
    }
}

impl Clipboard {
    /// The clipboard of X display `display` (e.g. `:3`).
    pub fn new(display: &str) -> Self {
        Clipboard {
            display: display.to_owned(),
            shared: Mutex::new(None),
        }
    }

    /// Puts `text` on the clipboard: this session owns it from now on and serves it to every
    /// application that pastes, until another one copies.
    pub fn set(&self, text: &str) -> Result<(), ClipboardError> {
        let s = self.started()?;
        if text.len() + 64 > s.conn.maximum_request_bytes() {
            return Err(ClipboardError(texts::clipboard_too_large(
                text.len(),
                s.conn.maximum_request_bytes(),
            )));
        }
        *s.owned.lock() = Some(text.to_owned());
        s.conn
            .set_selection_owner(s.window, s.atoms.clipboard, CURRENT_TIME)
            .map_err(x_failed)?;
        if owner(&s)? != s.window {
            *s.owned.lock() = None;
            return Err(ClipboardError(texts::CLIPBOARD_NOT_TAKEN.to_owned()));
        }
        Ok(())
    }

    /// After keys that copy (`deft_protocol::keys::copies`): while this session owns the
    /// clipboard, waits (at most `within`) for the application to take it over, so a read right
    /// after answers what was copied rather than what this session served before. Nothing to
    /// wait for when another application owns it: it answers a read only after the keys
    /// queued before it.
    pub fn await_handover(&self, within: Duration) {
        let Some(s) = self.shared.lock().clone() else {
            return;
        };
        let t0 = Instant::now();
        while s.owned.lock().is_some() && t0.elapsed() < within {
            if owner(&s).map_or(true, |o| o != s.window) {
                return;
            }
            std::thread::sleep(HANDOVER_POLL);
        }
    }

    /// Reads the clipboard's text, whoever owns it (this session included: the request goes
    /// through X like any application's).
    pub fn read(&self) -> Result<Read, ClipboardError> {
        let s = self.started()?;
        let _one = s.reading.lock();
        if owner(&s)? == NONE {
            return Ok(Read::Empty);
        }
        let (tx, rx) = mpsc::channel();
        *s.waiter.lock() = Some(tx);
        let read = read_text(&s, &rx);
        *s.waiter.lock() = None;
        read
    }

    /// The shared state, with its thread started (again, after its connection failed).
    fn started(&self) -> Result<Arc<Shared>, ClipboardError> {
        let mut slot = self.shared.lock();
        if let Some(s) = slot.as_ref().filter(|s| s.alive.load(Ordering::SeqCst)) {
            return Ok(s.clone());
        }
        let s = Arc::new(connect(&self.display)?);
        let serving = s.clone();
        std::thread::Builder::new()
            .name("deft-clipboard".into())
            .spawn(move || serve(&serving))
            .map_err(|e| ClipboardError(texts::clipboard_x_failed(&e.to_string())))?;
        *slot = Some(s.clone());
        Ok(s)
    }
}

impl Drop for Clipboard {
    /// Ends the serving thread: the connection closes with it and the X server drops the
    /// selection this session owned.
    fn drop(&mut self) {
        if let Some(s) = self.shared.lock().take() {
            s.alive.store(false, Ordering::SeqCst);
            let quit = ClientMessageEvent::new(32, s.window, s.atoms.quit, [0u32; 5]);
            let _ = s
                .conn
                .send_event(false, s.window, EventMask::NO_EVENT, quit);
            let _ = s.conn.flush();
        }
    }
}

/// The window that owns the clipboard now (`NONE`: nobody).
fn owner(s: &Shared) -> Result<Window, ClipboardError> {
    Ok(s.conn
        .get_selection_owner(s.atoms.clipboard)
        .map_err(x_failed)?
        .reply()
        .map_err(x_failed)?
        .owner)
}

/// Opens the connection and the window that owns the selection and receives conversions.
fn connect(display: &str) -> Result<Shared, ClipboardError> {
    let (conn, screen) = x11rb::connect(Some(display))
        .map_err(|e| ClipboardError(texts::clipboard_unreachable(display, &e.to_string())))?;
    let root = conn.setup().roots[screen].root;
    let atom = |name: &[u8]| -> Result<Atom, ClipboardError> {
        Ok(conn
            .intern_atom(false, name)
            .map_err(x_failed)?
            .reply()
            .map_err(x_failed)?
            .atom)
    };
    let atoms = Atoms {
        clipboard: atom(b"CLIPBOARD")?,
        targets: atom(b"TARGETS")?,
        utf8: atom(b"UTF8_STRING")?,
        text: atom(b"TEXT")?,
        incr: atom(b"INCR")?,
        landing: atom(b"DEFT_CLIPBOARD")?,
        quit: atom(b"DEFT_CLIPBOARD_QUIT")?,
    };
    let window = conn.generate_id().map_err(x_failed)?;
    conn.create_window(
        0,
        window,
        root,
        -10,
        -10,
        1,
        1,
        0,
        WindowClass::INPUT_ONLY,
        0,
        &CreateWindowAux::new().event_mask(EventMask::PROPERTY_CHANGE),
    )
    .map_err(x_failed)?;
    conn.flush().map_err(x_failed)?;
    Ok(Shared {
        conn,
        window,
        atoms,
        owned: Mutex::new(None),
        waiter: Mutex::new(None),
        reading: Mutex::new(()),
        alive: AtomicBool::new(true),
    })
}

/// The serving thread: answers requests for the text it owns, forgets it when another
/// application takes the clipboard, and hands the events of a read to its waiter.
fn serve(s: &Shared) {
    while s.alive.load(Ordering::SeqCst) {
        let event = match s.conn.wait_for_event() {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "the clipboard's X connection failed");
                break;
            }
        };
        match event {
            Event::SelectionRequest(r) => {
                if let Err(e) = answer(s, &r) {
                    tracing::warn!(error = %e, "cannot answer a clipboard request");
                }
            }
            // Another application copied; unless a set since then took it back (a stale
            // clear), the text is no longer ours to serve.
            Event::SelectionClear(c)
                if c.selection == s.atoms.clipboard && owner(s).ok() != Some(s.window) =>
            {
                *s.owned.lock() = None;
            }
            Event::ClientMessage(m) if m.type_ == s.atoms.quit => break,
            e @ (Event::SelectionNotify(_) | Event::PropertyNotify(_)) => {
                if let Some(tx) = s.waiter.lock().as_ref() {
                    let _ = tx.send(e);
                }
            }
            _ => {}
        }
    }
    s.alive.store(false, Ordering::SeqCst);
}

/// Answers one application's request for the clipboard: the text in the form it asks for, or
/// a refusal (`property` none) for forms it does not have.
fn answer(s: &Shared, r: &SelectionRequestEvent) -> Result<(), x11rb::errors::ReplyError> {
    let a = s.atoms;
    // Obsolete clients name no property: the target is the property then (ICCCM 2.2).
    let property = if r.property == NONE {
        r.target
    } else {
        r.property
    };
    let owned = s.owned.lock().clone();
    let given = match owned {
        Some(_) if r.selection != a.clipboard => false,
        None => false,
        Some(_) if r.target == a.targets => {
            let offered = [a.targets, a.utf8, a.text, AtomEnum::STRING.into()];
            s.conn.change_property32(
                PropMode::REPLACE,
                r.requestor,
                property,
                AtomEnum::ATOM,
                &offered,
            )?;
            true
        }
        Some(text) if r.target == a.utf8 || r.target == a.text => {
            s.conn.change_property8(
                PropMode::REPLACE,
                r.requestor,
                property,
                a.utf8,
                text.as_bytes(),
            )?;
            true
        }
        Some(text) if r.target == u32::from(AtomEnum::STRING) => match latin1(&text) {
            Some(bytes) => {
                s.conn.change_property8(
                    PropMode::REPLACE,
                    r.requestor,
                    property,
                    AtomEnum::STRING,
                    &bytes,
                )?;
                true
            }
            None => false,
        },
        Some(_) => false,
    };
    let notify = SelectionNotifyEvent {
        response_type: SELECTION_NOTIFY_EVENT,
        sequence: 0,
        time: r.time,
        requestor: r.requestor,
        selection: r.selection,
        target: r.target,
        property: if given { property } else { NONE },
    };
    s.conn
        .send_event(false, r.requestor, EventMask::NO_EVENT, notify)?;
    s.conn.flush()?;
    Ok(())
}

/// `text` as ISO Latin-1 (the `STRING` target), when every character has a Latin-1 code.
fn latin1(text: &str) -> Option<Vec<u8>> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect()
}

/// Asks the owner for UTF-8 text, then Latin-1; when it has neither, which targets it has.
fn read_text(s: &Shared, rx: &mpsc::Receiver<Event>) -> Result<Read, ClipboardError> {
    for target in [s.atoms.utf8, AtomEnum::STRING.into()] {
        if let Some(bytes) = convert(s, rx, target)? {
            let text = if target == s.atoms.utf8 {
                String::from_utf8_lossy(&bytes).into_owned()
            } else {
                bytes.iter().map(|&b| char::from(b)).collect()
            };
            return Ok(Read::Text(text));
        }
    }
    let offered = match convert(s, rx, s.atoms.targets)? {
        Some(bytes) => names(s, &bytes),
        None => Vec::new(),
    };
    Ok(Read::NotText(offered))
}

/// Converts the clipboard to `target` into our landing property and reads it; `None` when the
/// owner refuses that target.
fn convert(
    s: &Shared,
    rx: &mpsc::Receiver<Event>,
    target: Atom,
) -> Result<Option<Vec<u8>>, ClipboardError> {
    let a = s.atoms;
    s.conn
        .delete_property(s.window, a.landing)
        .map_err(x_failed)?;
    s.conn
        .convert_selection(s.window, a.clipboard, target, a.landing, CURRENT_TIME)
        .map_err(x_failed)?;
    s.conn.flush().map_err(x_failed)?;
    let deadline = Instant::now() + OWNER_WAIT;
    let notified = loop {
        match next(rx, deadline)? {
            Event::SelectionNotify(n) if n.selection == a.clipboard && n.target == target => {
                break n;
            }
            _ => {}
        }
    };
    if notified.property == NONE {
        return Ok(None);
    }
    let reply = s
        .conn
        .get_property(true, s.window, a.landing, AtomEnum::ANY, 0, u32::MAX / 4)
        .map_err(x_failed)?
        .reply()
        .map_err(x_failed)?;
    if reply.type_ == a.incr {
        return incremental(s, rx).map(Some);
    }
    Ok(Some(reply.value))
}

/// An `INCR` transfer: the owner writes the text in parts, each after we deleted the last;
/// an empty part ends it.
fn incremental(s: &Shared, rx: &mpsc::Receiver<Event>) -> Result<Vec<u8>, ClipboardError> {
    let mut all = Vec::new();
    loop {
        let deadline = Instant::now() + OWNER_WAIT;
        loop {
            if let Event::PropertyNotify(p) = next(rx, deadline)?
                && p.atom == s.atoms.landing
                && p.state == Property::NEW_VALUE
            {
                break;
            }
        }
        let part = s
            .conn
            .get_property(
                true,
                s.window,
                s.atoms.landing,
                AtomEnum::ANY,
                0,
                u32::MAX / 4,
            )
            .map_err(x_failed)?
            .reply()
            .map_err(x_failed)?;
        if part.value.is_empty() {
            return Ok(all);
        }
        all.extend_from_slice(&part.value);
    }
}

/// The next event the serving thread forwards, or the owner's silence as an error.
fn next(rx: &mpsc::Receiver<Event>, deadline: Instant) -> Result<Event, ClipboardError> {
    let left = deadline.saturating_duration_since(Instant::now());
    rx.recv_timeout(left).map_err(|e| match e {
        mpsc::RecvTimeoutError::Timeout => {
            ClipboardError(texts::clipboard_owner_silent(OWNER_WAIT.as_secs()))
        }
        mpsc::RecvTimeoutError::Disconnected => x_failed("the clipboard thread ended"),
    })
}

/// The names of the atoms of a `TARGETS` answer (32-bit values), the bookkeeping ones left
/// out.
fn names(s: &Shared, bytes: &[u8]) -> Vec<String> {
    let skip = [s.atoms.targets, s.atoms.incr];
    bytes
        .chunks_exact(4)
        .filter_map(|c| <[u8; 4]>::try_from(c).ok().map(u32::from_ne_bytes))
        .filter(|a| !skip.contains(a) && *a != NONE)
        .filter_map(|a| s.conn.get_atom_name(a).ok()?.reply().ok())
        .map(|r| String::from_utf8_lossy(&r.name).into_owned())
        .filter(|n| !matches!(n.as_str(), "TIMESTAMP" | "MULTIPLE" | "SAVE_TARGETS"))
        .collect()
}

/// `set_clipboard`'s answer: the text set, or why not.
pub async fn set_tool(clipboard: Arc<Clipboard>, args: ClipboardArgs) -> CallToolResult {
    let text = match args.checked_text() {
        Ok(t) => t.to_owned(),
        Err(e) => return failure(e),
    };
    match tokio::task::spawn_blocking(move || clipboard.set(&text).map(|()| text)).await {
        Ok(Ok(text)) => CallToolResult::structured(deft_protocol::clipboard::set_answer(&text)),
        Ok(Err(e)) => failure(e),
        Err(e) => failure(e),
    }
}

/// `get_clipboard`'s answer: the text, or why there is none.
pub async fn get_tool(clipboard: Arc<Clipboard>) -> CallToolResult {
    use deft_protocol::clipboard as shared;
    match tokio::task::spawn_blocking(move || clipboard.read()).await {
        Ok(Ok(Read::Text(text))) => CallToolResult::structured(shared::read_answer(&text)),
        Ok(Ok(Read::Empty)) => failure(shared::EMPTY),
        Ok(Ok(Read::NotText(offered))) => failure(shared::not_text(&offered)),
        Ok(Err(e)) => failure(e),
        Err(e) => failure(e),
    }
}

fn failure(text: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![rmcp::model::ContentBlock::text(text.to_string())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_only_when_every_character_has_a_code() {
        assert_eq!(latin1("Zoë é"), Some(b"Zo\xeb \xe9".to_vec()));
        assert_eq!(latin1("苏州"), None);
        assert_eq!(latin1(""), Some(Vec::new()));
    }
}
