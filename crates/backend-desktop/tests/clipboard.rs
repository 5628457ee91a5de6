//! The clipboard on a private managed desktop: `set_clipboard` / `get_clipboard` against the
//! real X `CLIPBOARD` selection — read back through X, served to another client (xclip) in each
//! target it asks for, taken over when another client copies (text, a large text that comes in
//! increments, an image that is no text), pasted into mousepad with `^v` and copied out of it
//! with `^c`; and the refusals (an empty clipboard, a text over the limit).

#![allow(clippy::unwrap_used)] // test helpers below: a failed set-up is a failed test

mod common;

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Harness, text_of};
use deft_test_support::desktop::require_program;
use serde_json::{Value, json};

/// Runs `xclip args` on the harness's display with `input` on its stdin; its output.
fn xclip(h: &Harness, args: &[&str]) -> std::process::Output {
    Command::new("xclip")
        .args(args)
        .env("DISPLAY", &h.state.display)
        .stdin(Stdio::null())
        .output()
        .expect("xclip runs")
}

/// xclip owning the clipboard with `data` as `target`, in the foreground until killed.
struct Owner(Child);

impl Owner {
    fn start(h: &Harness, target: &str, data: &[u8]) -> Owner {
        let mut child = Command::new("xclip")
            .args(["-i", "-selection", "clipboard", "-quiet", "-t", target])
            .env("DISPLAY", &h.state.display)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("xclip starts");
        let mut stdin = child.stdin.take().expect("xclip's stdin");
        stdin.write_all(data).expect("xclip reads its input");
        drop(stdin);
        Owner(child)
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `get_clipboard` until `done` accepts its answer (xclip takes the clipboard after it read
/// its input); the last answer, or a panic after 20 s.
async fn read_until(h: &Harness, done: impl Fn(bool, &str) -> bool) -> (bool, String) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let r = h.call("get_clipboard", json!({})).await;
        let failed = r.is_error == Some(true);
        let text = match &r.structured_content {
            Some(v) if !failed => v["text"].as_str().unwrap_or_default().to_owned(),
            _ => text_of(&r),
        };
        if done(failed, &text) {
            return (failed, text);
        }
        assert!(Instant::now() < deadline, "never got there; last: {text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn set_text_reads_back_through_x_in_every_target_a_client_asks_for() {
    require_program("xclip", "xclip");
    let h = Harness::new().await;
    assert_eq!(
        h.err("get_clipboard", json!({})).await,
        deft_protocol::clipboard::EMPTY,
        "nothing was copied on a fresh desktop"
    );
    let text = "Grüße, 苏州 ✓ Zoë\nline two";
    let set = h.ok("set_clipboard", json!({"text": text})).await;
    assert_eq!(set["chars"], 24, "{set}");
    let read = h.ok("get_clipboard", json!({})).await;
    assert_eq!(read, json!({"text": text, "chars": 24}));

    // Another client pastes it: UTF-8 by default, and the targets the session offers.
    let out = xclip(&h, &["-o", "-selection", "clipboard"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), text);
    let out = xclip(&h, &["-o", "-selection", "clipboard", "-t", "TARGETS"]);
    let targets = String::from_utf8_lossy(&out.stdout).into_owned();
    for t in ["TARGETS", "UTF8_STRING", "TEXT", "STRING"] {
        assert!(targets.lines().any(|l| l == t), "{t} in {targets}");
    }
    // STRING is Latin-1: refused for text that has no Latin-1 form, given for text that has.
    let out = xclip(&h, &["-o", "-selection", "clipboard", "-t", "STRING"]);
    assert!(!out.status.success() || out.stdout.is_empty(), "{out:?}");
    h.ok("set_clipboard", json!({"text": "Zoë"})).await;
    let out = xclip(&h, &["-o", "-selection", "clipboard", "-t", "STRING"]);
    assert_eq!(out.stdout, b"Zo\xeb");

    // An empty text empties it; a text over the limit is refused and the clipboard kept.
    h.ok("set_clipboard", json!({"text": ""})).await;
    assert_eq!(
        h.ok("get_clipboard", json!({})).await,
        json!({"text": "", "chars": 0})
    );
    h.ok("set_clipboard", json!({"text": "kept"})).await;
    let long = "a".repeat(deft_protocol::clipboard::MAX_CLIPBOARD_CHARS + 1);
    assert_eq!(
        h.err("set_clipboard", json!({"text": long})).await,
        "text is 100001 characters; set_clipboard takes at most 100000."
    );
    assert_eq!(h.ok("get_clipboard", json!({})).await["text"], "kept");
    assert!(h.err("set_clipboard", json!({})).await.contains("text"));
}

#[tokio::test(flavor = "multi_thread")]
async fn what_other_clients_copy_is_read_large_texts_and_non_text_included() {
    require_program("xclip", "xclip");
    let h = Harness::new().await;
    h.ok("set_clipboard", json!({"text": "ours"})).await;

    let theirs = "copied by xclip — 東京";
    let owner = Owner::start(&h, "UTF8_STRING", theirs.as_bytes());
    let (_, got) = read_until(&h, |failed, t| !failed && t != "ours").await;
    assert_eq!(
        got, theirs,
        "the session let go when xclip took the clipboard"
    );
    drop(owner);

    // 1.3 MB: more than xclip puts in one property (1 MiB here), so it sends it in
    // increments (INCR).
    let large: String = (0..80_000).map(|i| format!("line {i:05} ✓ \n")).collect();
    assert!(large.len() > 1 << 20);
    let owner = Owner::start(&h, "UTF8_STRING", large.as_bytes());
    let (_, got) = read_until(&h, |failed, t| !failed && t.len() > 100).await;
    assert_eq!(got.len(), large.len());
    assert!(got == large, "the increments arrive whole and in order");
    drop(owner);

    let image = ImageOwner::start(&h.state.display);
    let (failed, text) = read_until(&h, |failed, t| failed && t.contains("no text")).await;
    assert!(failed);
    assert_eq!(
        text,
        "The clipboard holds no text: the application that copied last offers only image/png. Copy text instead, or put it there with set_clipboard."
    );
    drop(image);

    // Taken back: xclip pastes what the session set.
    h.ok("set_clipboard", json!({"text": "ours again"})).await;
    let out = xclip(&h, &["-o", "-selection", "clipboard"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ours again");
}

/// An X client that copied an image: it owns the clipboard and offers only `image/png`
/// (xclip answers every target with its data, whatever it was told the data is).
struct ImageOwner {
    conn: std::sync::Arc<x11rb::rust_connection::RustConnection>,
    window: u32,
    serving: Option<std::thread::JoinHandle<()>>,
}

impl ImageOwner {
    fn start(display: &str) -> ImageOwner {
        use x11rb::connection::Connection;
        use x11rb::protocol::xproto::{ConnectionExt, CreateWindowAux, EventMask, WindowClass};
        let (conn, screen) = x11rb::connect(Some(display)).expect("X connects");
        let root = conn.setup().roots[screen].root;
        let window = conn.generate_id().unwrap();
        conn.create_window(
            0,
            window,
            root,
            0,
            0,
            1,
            1,
            0,
            WindowClass::INPUT_ONLY,
            0,
            &CreateWindowAux::new().event_mask(EventMask::STRUCTURE_NOTIFY),
        )
        .unwrap();
        let atom = |n: &[u8]| conn.intern_atom(false, n).unwrap().reply().unwrap().atom;
        let (clipboard, targets, png) = (atom(b"CLIPBOARD"), atom(b"TARGETS"), atom(b"image/png"));
        conn.set_selection_owner(window, clipboard, x11rb::CURRENT_TIME)
            .unwrap();
        conn.flush().unwrap();
        let conn = std::sync::Arc::new(conn);
        let serving = {
            let conn = conn.clone();
            std::thread::spawn(move || serve_image(&conn, targets, png))
        };
        ImageOwner {
            conn,
            window,
            serving: Some(serving),
        }
    }
}

/// Answers TARGETS with `image/png` and `image/png` with a few bytes; refuses the rest.
fn serve_image(conn: &x11rb::rust_connection::RustConnection, targets: u32, png: u32) {
    use x11rb::connection::Connection;
    use x11rb::protocol::Event;
    use x11rb::protocol::xproto::{
        AtomEnum, ConnectionExt, EventMask, PropMode, SELECTION_NOTIFY_EVENT, SelectionNotifyEvent,
    };
    use x11rb::wrapper::ConnectionExt as _;
    while let Ok(event) = conn.wait_for_event() {
        let r = match event {
            Event::SelectionRequest(r) => r,
            Event::DestroyNotify(_) | Event::SelectionClear(_) => return,
            _ => continue,
        };
        let given = if r.target == targets {
            conn.change_property32(
                PropMode::REPLACE,
                r.requestor,
                r.property,
                AtomEnum::ATOM,
                &[targets, png],
            )
            .unwrap();
            true
        } else if r.target == png {
            conn.change_property8(PropMode::REPLACE, r.requestor, r.property, png, b"\x89PNG")
                .unwrap();
            true
        } else {
            false
        };
        let notify = SelectionNotifyEvent {
            response_type: SELECTION_NOTIFY_EVENT,
            sequence: 0,
            time: r.time,
            requestor: r.requestor,
            selection: r.selection,
            target: r.target,
            property: if given { r.property } else { x11rb::NONE },
        };
        conn.send_event(false, r.requestor, EventMask::NO_EVENT, notify)
            .unwrap();
        conn.flush().unwrap();
    }
}

impl Drop for ImageOwner {
    fn drop(&mut self) {
        use x11rb::connection::Connection;
        use x11rb::protocol::xproto::ConnectionExt;
        // Destroying the window ends the serving loop (a DestroyNotify of its own).
        let _ = self.conn.destroy_window(self.window);
        let _ = self.conn.flush();
        if let Some(t) = self.serving.take() {
            let _ = t.join();
        }
    }
}

/// The document edit of the selected mousepad window: (id, name).
async fn document(h: &Harness) -> (String, String) {
    let found = h
        .ok(
            "find_controls",
            json!({"selector": {"type": "edit"}, "format": "json"}),
        )
        .await;
    let found: Value = match found {
        Value::String(s) => serde_json::from_str(&s).expect("find_controls JSON"),
        v => v,
    };
    let m = &found["matches"][0];
    (
        m["id"].as_str().expect("an edit").to_owned(),
        m["name"].as_str().unwrap_or_default().to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn mousepad_pastes_what_was_set_and_what_it_copies_is_read() {
    require_program("mousepad", "mousepad");
    let h = Harness::new().await;
    h.ok("launch_app", json!({"app": "mousepad"})).await;
    h.select_app("mousepad").await;
    let (id, name) = document(&h).await;

    let text = "Grüße, 苏州 ✓";
    h.ok("set_clipboard", json!({"text": text})).await;
    h.ok(
        "keyboard_input",
        json!({"id": id, "name": name, "keys": "^v"}),
    )
    .await;
    let doc = h.call("texts", json!({"id": id, "name": name})).await;
    assert_eq!(text_of(&doc), text, "mousepad pasted the session's text");

    // mousepad copies: the session reads mousepad's text.
    let copied = "copied in mousepad — Zoë";
    h.ok(
        "set_edit_text",
        json!({"id": id, "name": name, "text": copied}),
    )
    .await;
    h.ok(
        "keyboard_input",
        json!({"id": id, "name": name, "keys": "^a^c"}),
    )
    .await;
    let (_, got) = read_until(&h, |failed, t| !failed && t != text).await;
    assert_eq!(got, copied);

    // And the session takes it back: mousepad pastes the new text over its selection.
    h.ok("set_clipboard", json!({"text": "again ✓"})).await;
    h.ok(
        "keyboard_input",
        json!({"id": id, "name": name, "keys": "^a^v"}),
    )
    .await;
    let doc = h.call("texts", json!({"id": id, "name": name})).await;
    assert_eq!(text_of(&doc), "again ✓");
}
