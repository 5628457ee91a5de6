//! Real input events through CDP's `Input` domain (the page sees `isTrusted: true`): mouse
//! clicks, drags and wheel turns at viewport points, key strokes and text insertion.
//!
//! A click that opens a JavaScript dialog is answered by the browser only after the dialog
//! closes, so every dispatch races its answer against `Page.javascriptDialogOpening`.

use serde_json::{Value, json};

use crate::cdp::{Cdp, CdpError};
use crate::keys::{Key, KeyStroke};

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
            Ok(Ok(_)) => Ok(Dispatched::Done),
            Ok(Err(message)) => Err(CdpError::Protocol { method: method.to_owned(), message }),
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
pub fn button_name(button: Option<&str>) -> Result<&'static str, String> {
    match button.map(|b| b.trim().to_ascii_lowercase()).as_deref() {
        None | Some("" | "left") => Ok("left"),
        Some("right") => Ok("right"),
        Some("middle" | "wheel") => Ok("middle"),
        Some(other) => Err(format!(
            "Unknown mouse button '{other}': use \"left\", \"right\" or \"middle\"."
        )),
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

/// Presses at `from`, moves in steps to `to`, releases.
pub async fn drag(
    cdp: &Cdp,
    session: &str,
    from: (f64, f64),
    to: (f64, f64),
    button: &str,
) -> Result<Dispatched, CdpError> {
    let ev = |kind: &str, x: f64, y: f64, buttons: u8| json!({"type": kind, "x": x, "y": y, "button": button, "buttons": buttons, "clickCount": 1});
    let mask = button_mask(button);
    dispatch(
        cdp,
        session,
        "Input.dispatchMouseEvent",
        json!({"type": "mouseMoved", "x": from.0, "y": from.1}),
    )
    .await?;
    dispatch(
        cdp,
        session,
        "Input.dispatchMouseEvent",
        ev("mousePressed", from.0, from.1, mask),
    )
    .await?;
    const STEPS: u32 = 8;
    for i in 1..=STEPS {
        let t = f64::from(i) / f64::from(STEPS);
        let (x, y) = (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
        dispatch(
            cdp,
            session,
            "Input.dispatchMouseEvent",
            json!({"type": "mouseMoved", "x": x, "y": y, "button": button, "buttons": mask}),
        )
        .await?;
    }
    dispatch(
        cdp,
        session,
        "Input.dispatchMouseEvent",
        ev("mouseReleased", to.0, to.1, 0),
    )
    .await
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

/// `(key, code, windows virtual key code, text)` of a named key.
fn named_key(name: &str) -> (&'static str, i64, Option<&'static str>) {
    match name {
        "Enter" => ("Enter", 13, Some("\r")),
        "Tab" => ("Tab", 9, None),
        "Escape" => ("Escape", 27, None),
        "Backspace" => ("Backspace", 8, None),
        "Delete" => ("Delete", 46, None),
        "Insert" => ("Insert", 45, None),
        "Home" => ("Home", 36, None),
        "End" => ("End", 35, None),
        "PageUp" => ("PageUp", 33, None),
        "PageDown" => ("PageDown", 34, None),
        "ArrowUp" => ("ArrowUp", 38, None),
        "ArrowDown" => ("ArrowDown", 40, None),
        "ArrowLeft" => ("ArrowLeft", 37, None),
        "ArrowRight" => ("ArrowRight", 39, None),
        f if f.starts_with('F') => {
            let n: i64 = f[1..].parse().unwrap_or(1);
            ("F", 111 + n, None)
        }
        _ => ("Unidentified", 0, None),
    }
}

fn char_code(c: char) -> (String, i64) {
    match c {
        'a'..='z' => (
            format!("Key{}", c.to_ascii_uppercase()),
            c.to_ascii_uppercase() as i64,
        ),
        'A'..='Z' => (format!("Key{c}"), c as i64),
        '0'..='9' => (format!("Digit{c}"), c as i64),
        ' ' => ("Space".into(), 32),
        _ => (String::new(), 0),
    }
}

/// Presses one key stroke (down, up) with its modifiers.
pub async fn press(cdp: &Cdp, session: &str, stroke: &KeyStroke) -> Result<Dispatched, CdpError> {
    let mods = stroke.modifiers.cdp_mask();
    let (down, up) = match &stroke.key {
        Key::Char(c) => {
            let (code, vk) = char_code(*c);
            let text = c.to_string();
            let key = if stroke.modifiers.shift && c.is_ascii_lowercase() {
                c.to_ascii_uppercase().to_string()
            } else {
                text.clone()
            };
            let typing = !(stroke.modifiers.ctrl || stroke.modifiers.alt);
            let mut down = json!({"type": if typing {"keyDown"} else {"rawKeyDown"}, "key": key, "code": code,
                "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk, "modifiers": mods});
            if typing {
                down["text"] = Value::String(key.clone());
                down["unmodifiedText"] = Value::String(text);
            }
            let up = json!({"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk,
                "nativeVirtualKeyCode": vk, "modifiers": mods});
            (down, up)
        }
        Key::Named(name) => {
            let (key, vk, text) = named_key(name);
            let key = if key == "F" { *name } else { key };
            let mut down = json!({"type": if text.is_some() {"keyDown"} else {"rawKeyDown"}, "key": key, "code": key,
                "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk, "modifiers": mods});
            if let Some(t) = text {
                down["text"] = Value::String(t.to_owned());
                down["unmodifiedText"] = Value::String(t.to_owned());
            }
            let up = json!({"type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": vk,
                "nativeVirtualKeyCode": vk, "modifiers": mods});
            (down, up)
        }
    };
    if dispatch(cdp, session, "Input.dispatchKeyEvent", down).await? == Dispatched::DialogOpened {
        return Ok(Dispatched::DialogOpened);
    }
    dispatch(cdp, session, "Input.dispatchKeyEvent", up).await
}
