//! Real input events through CDP's `Input` domain (the page sees `isTrusted: true`): mouse
//! clicks, drags and wheel turns at viewport points, key strokes and text insertion.
//!
//! A click that opens a JavaScript dialog is answered by the browser only after the dialog
//! closes, so every dispatch races its answer against `Page.javascriptDialogOpening`.

use serde_json::{Value, json};

use crate::browser::BrowserError;
use crate::cdp::{Cdp, CdpError};
use crate::keys::{self, KeyStep};
use crate::texts;

/// Whether a dispatch finished or a dialog opened while it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatched {
    /// The browser handled the event.
    Done,
    /// A dialog opened; the event's handler is blocked until it is answered.
    DialogOpened,
}

/// Sends `method` on `session`, returning early when a dialog opens on any session.
pub async fn dispatch(
    cdp: &Cdp,
    session: &str,
    method: &str,
    params: Value,
) -> Result<Dispatched, CdpError> {
    let mut events = cdp.events();
    let rx = cdp.send(Some(session), method, params)?;
    let dialog = crate::cdp::dialog_opening(&mut events);
    tokio::select! {
        r = rx => match r {
            Ok(answer) => answer.map(|_| Dispatched::Done),
            Err(_) => Err(CdpError::Closed),
        },
        () = dialog => Ok(Dispatched::DialogOpened),
        () = tokio::time::sleep(crate::cdp::CALL_LIMIT) => Err(CdpError::Timeout {
            method: method.to_owned(),
            secs: crate::cdp::CALL_LIMIT.as_secs(),
        }),
    }
}

/// A mouse button by UFO's names (`left`, `right`, `middle`, `wheel` = middle).
pub fn button_name(button: Option<&str>) -> Result<&'static str, BrowserError> {
    match button.map(|b| b.trim().to_ascii_lowercase()).as_deref() {
        None | Some("" | "left") => Ok("left"),
        Some("right") => Ok("right"),
        Some("middle" | "wheel") => Ok("middle"),
        Some(other) => Err(BrowserError::Model(texts::bad_button(other))),
    }
}

fn button_mask(button: &str) -> u8 {
    match button {
        "left" => 1,
        "right" => 2,
        _ => 4,
    }
}

/// Moves to `(x, y)` and clicks `button` (`count` 2 for a double click).
pub async fn click(
    cdp: &Cdp,
    session: &str,
    x: f64,
    y: f64,
    button: &str,
    count: u32,
) -> Result<Dispatched, CdpError> {
    dispatch(
        cdp,
        session,
        "Input.dispatchMouseEvent",
        json!({"type": "mouseMoved", "x": x, "y": y}),
    )
    .await?;
    for n in 1..=count {
        for kind in ["mousePressed", "mouseReleased"] {
            let buttons = if kind == "mousePressed" {
                button_mask(button)
            } else {
                0
            };
            let d = dispatch(
                cdp,
                session,
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": button, "buttons": buttons, "clickCount": n}),
            )
            .await?;
            if d == Dispatched::DialogOpened {
                return Ok(d);
            }
        }
    }
    Ok(Dispatched::Done)
}

/// Presses `button` at `(x, y)`, holds it for `hold`, releases (a long press: the page sees
/// `mousedown`, then `mouseup` and `click` `hold` later).
pub async fn press_hold(
    cdp: &Cdp,
    session: &str,
    x: f64,
    y: f64,
    button: &str,
    hold: std::time::Duration,
) -> Result<Dispatched, CdpError> {
    dispatch(
        cdp,
        session,
        "Input.dispatchMouseEvent",
        json!({"type": "mouseMoved", "x": x, "y": y}),
    )
    .await?;
    let pressed = dispatch(
        cdp,
        session,
        "Input.dispatchMouseEvent",
        json!({"type": "mousePressed", "x": x, "y": y, "button": button, "buttons": button_mask(button), "clickCount": 1}),
    )
    .await?;
    if pressed == Dispatched::DialogOpened {
        return Ok(pressed);
    }
    tokio::time::sleep(hold).await;
    dispatch(
        cdp,
        session,
        "Input.dispatchMouseEvent",
        json!({"type": "mouseReleased", "x": x, "y": y, "button": button, "buttons": 0, "clickCount": 1}),
    )
    .await
}

/// Presses at `from`, moves in steps to `to`, releases; `hold` is a modifier key held down
/// for the whole drag (its key events included, so the page sees e.g. Ctrl go down).
pub async fn drag(
    cdp: &Cdp,
    session: &str,
    from: (f64, f64),
    to: (f64, f64),
    button: &str,
    hold: Option<keys::Modifier>,
) -> Result<Dispatched, CdpError> {
    let mods = hold.map_or(0, keys::modifier_bit);
    let buttons = button_mask(button);
    let mouse = |kind: &str, (x, y): (f64, f64), pressed: bool| {
        json!({"type": kind, "x": x, "y": y, "button": button, "buttons": if pressed { buttons } else { 0 },
            "clickCount": 1, "modifiers": mods})
    };
    let mut events = Vec::new();
    if let Some(m) = hold {
        events.push((
            "Input.dispatchKeyEvent",
            key_event("rawKeyDown", &keys::modifier_key(m), mods),
        ));
    }
    events.push((
        "Input.dispatchMouseEvent",
        json!({"type": "mouseMoved", "x": from.0, "y": from.1, "modifiers": mods}),
    ));
    events.push((
        "Input.dispatchMouseEvent",
        mouse("mousePressed", from, true),
    ));
    const STEPS: u32 = 8;
    for i in 1..=STEPS {
        let t = f64::from(i) / f64::from(STEPS);
        let at = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        events.push(("Input.dispatchMouseEvent", mouse("mouseMoved", at, true)));
    }
    events.push((
        "Input.dispatchMouseEvent",
        mouse("mouseReleased", to, false),
    ));
    if let Some(m) = hold {
        events.push((
            "Input.dispatchKeyEvent",
            key_event("keyUp", &keys::modifier_key(m), 0),
        ));
    }
    for (method, e) in events {
        if dispatch(cdp, session, method, e).await? == Dispatched::DialogOpened {
            return Ok(Dispatched::DialogOpened);
        }
    }
    Ok(Dispatched::Done)
}

/// Turns the wheel at `(x, y)`: `notches` > 0 scrolls up, as pywinauto's `wheel_dist`.
pub async fn wheel(
    cdp: &Cdp,
    session: &str,
    x: f64,
    y: f64,
    notches: i64,
) -> Result<Dispatched, CdpError> {
    dispatch(
        cdp,
        session,
        "Input.dispatchMouseEvent",
        json!({"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": -(notches as f64) * 100.0}),
    )
    .await
}

/// Inserts `text` at the focus, as an IME would (one `input` event; non-ASCII intact).
pub async fn insert_text(cdp: &Cdp, session: &str, text: &str) -> Result<Dispatched, CdpError> {
    dispatch(cdp, session, "Input.insertText", json!({"text": text})).await
}

/// Presses parsed key steps in order: characters and named keys go down and up with the held
/// modifiers in their mask; a modifier goes down as its own key event and stays held until its
/// `Up` step (or the end, which releases whatever is still held). Stops at a dialog.
pub async fn press_steps(
    cdp: &Cdp,
    session: &str,
    steps: &[KeyStep],
) -> Result<Dispatched, CdpError> {
    let mut held: Vec<keys::Modifier> = Vec::new();
    for step in steps {
        let mask = mask_of(&held);
        let events = match *step {
            KeyStep::Down(m) if held.contains(&m) => continue,
            KeyStep::Down(m) => {
                held.push(m);
                vec![key_event(
                    "rawKeyDown",
                    &keys::modifier_key(m),
                    mask | keys::modifier_bit(m),
                )]
            }
            KeyStep::Up(m) => {
                if !held.contains(&m) {
                    continue;
                }
                held.retain(|h| *h != m);
                vec![key_event(
                    "keyUp",
                    &keys::modifier_key(m),
                    mask & !keys::modifier_bit(m),
                )]
            }
            KeyStep::Char(c) => char_events(c, mask),
            KeyStep::Key(k) => {
                let d = keys::dom_key(k);
                let mut down = key_event(
                    if d.text.is_some() {
                        "keyDown"
                    } else {
                        "rawKeyDown"
                    },
                    &d,
                    mask,
                );
                if let Some(t) = d.text {
                    down["text"] = json!(t);
                    down["unmodifiedText"] = json!(t);
                }
                vec![down, key_event("keyUp", &d, mask)]
            }
        };
        for e in events {
            if dispatch(cdp, session, "Input.dispatchKeyEvent", e).await?
                == Dispatched::DialogOpened
            {
                return Ok(Dispatched::DialogOpened);
            }
        }
    }
    while let Some(m) = held.pop() {
        let mask = mask_of(&held);
        let e = key_event("keyUp", &keys::modifier_key(m), mask);
        if dispatch(cdp, session, "Input.dispatchKeyEvent", e).await? == Dispatched::DialogOpened {
            return Ok(Dispatched::DialogOpened);
        }
    }
    Ok(Dispatched::Done)
}

/// CDP's modifier mask of the modifiers in `held`.
fn mask_of(held: &[keys::Modifier]) -> u8 {
    held.iter().fold(0, |m, h| m | keys::modifier_bit(*h))
}

fn key_event(kind: &str, k: &keys::DomKey, mask: u8) -> Value {
    json!({"type": kind, "key": k.key, "code": k.code, "windowsVirtualKeyCode": k.vk,
        "nativeVirtualKeyCode": k.vk, "modifiers": mask})
}

/// Down and up of character `c` with modifier `mask`: it types itself unless Ctrl, Alt or Meta
/// is held (then it is a shortcut); Shift upper-cases a letter. A shortcut goes down as
/// `keyDown` without text: Chrome runs its editing shortcuts (`^a`, `^c`, `^x`, `^v`, `^z`)
/// for a `keyDown` only (not a `rawKeyDown`), and without text nothing is typed.
fn char_events(c: char, mask: u8) -> Vec<Value> {
    let shift = mask & keys::modifier_bit(keys::Modifier::Shift) != 0;
    let shortcut = mask & !keys::modifier_bit(keys::Modifier::Shift) != 0;
    let (code, vk) = keys::char_code(c);
    let text = c.to_string();
    let key = if shift && c.is_ascii_lowercase() {
        c.to_ascii_uppercase().to_string()
    } else {
        text.clone()
    };
    let k = keys::DomKey {
        key: key.clone(),
        code,
        vk,
        text: None,
    };
    let mut down = key_event("keyDown", &k, mask);
    if !shortcut {
        down["text"] = json!(key);
        down["unmodifiedText"] = json!(text);
    }
    vec![down, key_event("keyUp", &k, mask)]
}
