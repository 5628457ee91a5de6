//! The X side of the desktop: real input through XTest, screen capture, and top-level windows
//! (`_NET_CLIENT_LIST`, `_NET_WM_PID`, `_NET_ACTIVE_WINDOW`, `_NET_CLOSE_WINDOW`).
//!
//! Calls here block for a round trip or two; the server runs them off the async runtime.

use parking_lot::Mutex;
use std::collections::HashMap;

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt, EventMask, ImageFormat,
    StackMode, Window,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

/// XTest event types.
const KEY_PRESS: u8 = 2;
const KEY_RELEASE: u8 = 3;
const BUTTON_PRESS: u8 = 4;
const BUTTON_RELEASE: u8 = 5;
const MOTION: u8 = 6;

/// An X error, as text for logs and tool errors.
#[derive(Debug, thiserror::Error)]
#[error("X11: {0}")]
pub struct XError(pub String);

fn xe(e: impl std::fmt::Display) -> XError {
    XError(e.to_string())
}

/// A top-level window as the window manager lists it.
#[derive(Debug, Clone)]
pub struct XWindow {
    /// X window id.
    pub id: Window,
    /// `_NET_WM_PID`, when set.
    pub pid: Option<u32>,
    /// `_NET_WM_NAME` (or `WM_NAME`).
    pub title: String,
    /// `WM_CLASS`'s class part (`libreoffice-writer`), empty when unset.
    pub class: String,
    /// Screen rect `[left, top, right, bottom]`.
    pub rect: [i32; 4],
}

struct Atoms {
    client_list: u32,
    wm_pid: u32,
    wm_name: u32,
    utf8: u32,
    active: u32,
    close: u32,
}

/// Keyboard state: where each keysym sits, and spare keycodes rebound for other characters.
struct Keymap {
    min: u8,
    per: u8,
    /// keysym → (keycode, needs shift)
    by_sym: HashMap<u32, (u8, bool)>,
    /// Keycodes with no symbols, free to bind.
    spare: Vec<u8>,
    /// Rebound spare keycodes, oldest first.
    bound: Vec<(u8, u32)>,
}

/// One connection to the X server of the desktop.
pub struct X11 {
    conn: RustConnection,
    root: Window,
    /// Screen size.
    pub size: (u16, u16),
    atoms: Atoms,
    keymap: Mutex<Keymap>,
    modifiers: HashMap<&'static str, u8>,
}

impl std::fmt::Debug for X11 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("X11").field("size", &self.size).finish()
    }
}

/// A mouse button, as XTest numbers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    /// Button 1.
    Left,
    /// Button 2.
    Middle,
    /// Button 3.
    Right,
}

impl Button {
    fn detail(self) -> u8 {
        match self {
            Button::Left => 1,
            Button::Middle => 2,
            Button::Right => 3,
        }
    }
}

impl X11 {
    /// Connects to `display` (e.g. `:3`) and reads the keyboard mapping.
    pub fn connect(display: &str) -> Result<X11, XError> {
        let (conn, screen) = x11rb::connect(Some(display)).map_err(xe)?;
        let s = &conn.setup().roots[screen];
        let root = s.root;
        let size = (s.width_in_pixels, s.height_in_pixels);
        let atom = |name: &[u8]| -> Result<u32, XError> {
            Ok(conn
                .intern_atom(false, name)
                .map_err(xe)?
                .reply()
                .map_err(xe)?
                .atom)
        };
        let atoms = Atoms {
            client_list: atom(b"_NET_CLIENT_LIST")?,
            wm_pid: atom(b"_NET_WM_PID")?,
            wm_name: atom(b"_NET_WM_NAME")?,
            utf8: atom(b"UTF8_STRING")?,
            active: atom(b"_NET_ACTIVE_WINDOW")?,
            close: atom(b"_NET_CLOSE_WINDOW")?,
        };
        // The extension must be there for input.
        conn.xtest_get_version(2, 2)
            .map_err(xe)?
            .reply()
            .map_err(|e| XError(format!("the XTEST extension is missing: {e}")))?;
        let keymap = read_keymap(&conn)?;
        let modifiers = read_modifiers(&conn, &keymap)?;
        Ok(X11 {
            conn,
            root,
            size,
            atoms,
            keymap: Mutex::new(keymap),
            modifiers,
        })
    }

    /// Waits until the server has processed everything sent so far.
    pub fn sync(&self) -> Result<(), XError> {
        self.conn
            .get_input_focus()
            .map_err(xe)?
            .reply()
            .map_err(xe)?;
        Ok(())
    }

    fn fake(&self, kind: u8, detail: u8, x: i16, y: i16) -> Result<(), XError> {
        self.conn
            .xtest_fake_input(kind, detail, 0, self.root, x, y, 0)
            .map_err(xe)?;
        Ok(())
    }

    /// Clicks (or double-clicks) `button` at `(x, y)`.
    pub fn click(&self, x: i32, y: i32, button: Button, double: bool) -> Result<(), XError> {
        self.fake(MOTION, 0, clamp16(x), clamp16(y))?;
        let times = if double { 2 } else { 1 };
        for _ in 0..times {
            self.fake(BUTTON_PRESS, button.detail(), 0, 0)?;
            self.fake(BUTTON_RELEASE, button.detail(), 0, 0)?;
        }
        self.conn.flush().map_err(xe)?;
        self.sync()
    }

    /// Presses `button` at `(x, y)`, holds it for `hold`, releases (a long press). Blocks for
    /// the hold; the release is sent whatever the hold was cut short by.
    pub fn long_press(
        &self,
        x: i32,
        y: i32,
        button: Button,
        hold: std::time::Duration,
    ) -> Result<(), XError> {
        self.fake(MOTION, 0, clamp16(x), clamp16(y))?;
        self.fake(BUTTON_PRESS, button.detail(), 0, 0)?;
        self.conn.flush().map_err(xe)?;
        let pressed = self.sync();
        std::thread::sleep(hold);
        self.fake(BUTTON_RELEASE, button.detail(), 0, 0)?;
        self.conn.flush().map_err(xe)?;
        pressed.and_then(|()| self.sync())
    }

    /// Presses at `from`, moves in steps to `to`, releases.
    pub fn drag(&self, from: (i32, i32), to: (i32, i32), button: Button) -> Result<(), XError> {
        self.fake(MOTION, 0, clamp16(from.0), clamp16(from.1))?;
        self.fake(BUTTON_PRESS, button.detail(), 0, 0)?;
        self.conn.flush().map_err(xe)?;
        self.sync()?;
        const STEPS: i32 = 10;
        for i in 1..=STEPS {
            let x = from.0 + (to.0 - from.0) * i / STEPS;
            let y = from.1 + (to.1 - from.1) * i / STEPS;
            self.fake(MOTION, 0, clamp16(x), clamp16(y))?;
            self.conn.flush().map_err(xe)?;
            self.sync()?;
        }
        self.fake(BUTTON_RELEASE, button.detail(), 0, 0)?;
        self.conn.flush().map_err(xe)?;
        self.sync()
    }

    /// Turns the wheel at `(x, y)`: positive `clicks` scroll down, negative up.
    pub fn wheel(&self, x: i32, y: i32, clicks: i32) -> Result<(), XError> {
        self.fake(MOTION, 0, clamp16(x), clamp16(y))?;
        let detail = if clicks >= 0 { 5 } else { 4 };
        for _ in 0..clicks.unsigned_abs().min(100) {
            self.fake(BUTTON_PRESS, detail, 0, 0)?;
            self.fake(BUTTON_RELEASE, detail, 0, 0)?;
        }
        self.conn.flush().map_err(xe)?;
        self.sync()
    }

    /// The keycode of a modifier (`shift`, `control`, `alt`, `super`), when the keyboard has one.
    pub fn modifier(&self, name: &str) -> Option<u8> {
        self.modifiers.get(name).copied()
    }

    /// Presses or releases a raw keycode.
    pub fn key(&self, keycode: u8, down: bool) -> Result<(), XError> {
        self.fake(if down { KEY_PRESS } else { KEY_RELEASE }, keycode, 0, 0)?;
        self.conn.flush().map_err(xe)
    }

    /// The keycode for `keysym` and whether it needs shift; binds a spare keycode when the
    /// keyboard has none (so any Unicode character can be typed).
    pub fn keycode_for(&self, keysym: u32) -> Result<(u8, bool), XError> {
        let mut km = self.keymap.lock();
        if let Some(&found) = km.by_sym.get(&keysym) {
            return Ok(found);
        }
        let code = if let Some(code) = km.spare.pop() {
            code
        } else if !km.bound.is_empty() {
            let (code, old) = km.bound.remove(0);
            km.by_sym.remove(&old);
            code
        } else {
            return Err(XError("no free keycode to bind a character to".into()));
        };
        let per = km.per;
        let syms = vec![keysym; usize::from(per)];
        self.conn
            .change_keyboard_mapping(1, code, per, &syms)
            .map_err(xe)?;
        self.sync()?;
        km.by_sym.insert(keysym, (code, false));
        km.bound.push((code, keysym));
        let _ = km.min;
        Ok((code, false))
    }

    /// Types one keysym (with shift when its keycode needs it).
    pub fn tap_keysym(&self, keysym: u32) -> Result<(), XError> {
        let (code, shift) = self.keycode_for(keysym)?;
        let shift_code = if shift { self.modifier("shift") } else { None };
        if let Some(s) = shift_code {
            self.key(s, true)?;
        }
        self.key(code, true)?;
        self.key(code, false)?;
        if let Some(s) = shift_code {
            self.key(s, false)?;
        }
        Ok(())
    }

    /// Top-level client windows (from the window manager's `_NET_CLIENT_LIST`).
    pub fn client_windows(&self) -> Result<Vec<XWindow>, XError> {
        let list = self
            .conn
            .get_property(
                false,
                self.root,
                self.atoms.client_list,
                AtomEnum::WINDOW,
                0,
                4096,
            )
            .map_err(xe)?
            .reply()
            .map_err(xe)?;
        let ids: Vec<u32> = list.value32().map(|v| v.collect()).unwrap_or_default();
        let mut out = Vec::new();
        for id in ids {
            let pid = self
                .conn
                .get_property(false, id, self.atoms.wm_pid, AtomEnum::CARDINAL, 0, 1)
                .ok()
                .and_then(|c| c.reply().ok())
                .and_then(|r| r.value32().and_then(|mut v| v.next()));
            let title = self
                .conn
                .get_property(false, id, self.atoms.wm_name, self.atoms.utf8, 0, 1024)
                .ok()
                .and_then(|c| c.reply().ok())
                .map(|r| String::from_utf8_lossy(&r.value).into_owned())
                .unwrap_or_default();
            let Ok(geo) = self
                .conn
                .get_geometry(id)
                .map_err(xe)
                .and_then(|c| c.reply().map_err(xe))
            else {
                continue;
            };
            let Ok(tr) = self
                .conn
                .translate_coordinates(id, self.root, 0, 0)
                .map_err(xe)
                .and_then(|c| c.reply().map_err(xe))
            else {
                continue;
            };
            let (x, y) = (i32::from(tr.dst_x), i32::from(tr.dst_y));
            // WM_CLASS is "instance\0class\0".
            let class = self
                .conn
                .get_property(false, id, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 256)
                .ok()
                .and_then(|c| c.reply().ok())
                .and_then(|r| {
                    r.value
                        .split(|b| *b == 0)
                        .nth(1)
                        .map(|c| String::from_utf8_lossy(c).into_owned())
                })
                .unwrap_or_default();
            out.push(XWindow {
                id,
                pid,
                title,
                class,
                rect: [x, y, x + i32::from(geo.width), y + i32::from(geo.height)],
            });
        }
        Ok(out)
    }

    /// Asks the window manager to activate (raise and focus) `window`, and raises it directly.
    pub fn activate(&self, window: Window) -> Result<(), XError> {
        let event = ClientMessageEvent::new(
            32,
            window,
            self.atoms.active,
            [2u32, x11rb::CURRENT_TIME, 0, 0, 0],
        );
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(xe)?;
        self.conn
            .configure_window(
                window,
                &ConfigureWindowAux::new().stack_mode(StackMode::ABOVE),
            )
            .map_err(xe)?;
        self.conn.flush().map_err(xe)?;
        self.sync()
    }

    /// Asks the window manager to close `window` politely (EWMH `_NET_CLOSE_WINDOW`, as a pager
    /// would): the application gets its delete-window request and may still ask to save.
    pub fn close(&self, window: Window) -> Result<(), XError> {
        // data: timestamp, source indication 2 (a pager or a tool acting for the user).
        let event = ClientMessageEvent::new(
            32,
            window,
            self.atoms.close,
            [x11rb::CURRENT_TIME, 2, 0, 0, 0],
        );
        self.conn
            .send_event(
                false,
                self.root,
                EventMask::SUBSTRUCTURE_REDIRECT | EventMask::SUBSTRUCTURE_NOTIFY,
                event,
            )
            .map_err(xe)?;
        self.conn.flush().map_err(xe)?;
        self.sync()
    }

    /// Captures the screen area `[left, top, right, bottom]` (clipped to the screen) as RGB.
    pub fn capture(&self, rect: [i32; 4]) -> Result<RgbImage, XError> {
        let (sw, sh) = (i32::from(self.size.0), i32::from(self.size.1));
        let l = rect[0].clamp(0, sw);
        let t = rect[1].clamp(0, sh);
        let r = rect[2].clamp(0, sw);
        let b = rect[3].clamp(0, sh);
        if r - l < 2 || b - t < 2 {
            return Err(XError(format!(
                "the area [{},{},{},{}] is not on the screen",
                rect[0], rect[1], rect[2], rect[3]
            )));
        }
        let (w, h) = ((r - l) as u16, (b - t) as u16);
        let reply = self
            .conn
            .get_image(
                ImageFormat::Z_PIXMAP,
                self.root,
                l as i16,
                t as i16,
                w,
                h,
                !0,
            )
            .map_err(xe)?
            .reply()
            .map_err(xe)?;
        let data = reply.data;
        let pixels = usize::from(w) * usize::from(h);
        if data.len() < pixels * 4 {
            return Err(XError(format!(
                "unexpected image format (depth {}, {} bytes for {w}x{h})",
                reply.depth,
                data.len()
            )));
        }
        let mut rgb = Vec::with_capacity(pixels * 3);
        for px in data.chunks_exact(4).take(pixels) {
            rgb.extend_from_slice(&[px[2], px[1], px[0]]);
        }
        Ok(RgbImage {
            width: u32::from(w),
            height: u32::from(h),
            origin: (l, t),
            pixels: rgb,
        })
    }
}

pub use deft_protocol::marks::RgbImage;

/// `img` as PNG bytes (fast compression).
pub fn to_png(img: &RgbImage) -> Result<Vec<u8>, XError> {
    let mut out = Vec::with_capacity(img.pixels.len() / 4);
    {
        let mut enc = png::Encoder::new(&mut out, img.width, img.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut w = enc.write_header().map_err(xe)?;
        w.write_image_data(&img.pixels).map_err(xe)?;
    }
    Ok(out)
}

fn clamp16(v: i32) -> i16 {
    v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

fn read_keymap(conn: &RustConnection) -> Result<Keymap, XError> {
    let setup = conn.setup();
    let (min, max) = (setup.min_keycode, setup.max_keycode);
    let reply = conn
        .get_keyboard_mapping(min, max - min + 1)
        .map_err(xe)?
        .reply()
        .map_err(xe)?;
    let per = reply.keysyms_per_keycode;
    let mut by_sym = HashMap::new();
    let mut spare = Vec::new();
    for (i, syms) in reply.keysyms.chunks(usize::from(per)).enumerate() {
        let code = min + i as u8;
        if syms.iter().all(|s| *s == 0) {
            spare.push(code);
            continue;
        }
        for (col, sym) in syms.iter().enumerate().take(2) {
            if *sym != 0 {
                by_sym.entry(*sym).or_insert((code, col == 1));
            }
        }
    }
    // Bind from the top: the low spare codes are sometimes used by XKB.
    spare.sort_unstable();
    Ok(Keymap {
        min,
        per,
        by_sym,
        spare,
        bound: Vec::new(),
    })
}

fn read_modifiers(
    conn: &RustConnection,
    keymap: &Keymap,
) -> Result<HashMap<&'static str, u8>, XError> {
    let mut out = HashMap::new();
    for (name, sym) in [
        ("shift", 0xffe1u32),
        ("control", 0xffe3),
        ("alt", 0xffe9),
        ("super", 0xffeb),
    ] {
        if let Some((code, _)) = keymap.by_sym.get(&sym) {
            out.insert(name, *code);
        }
    }
    let _ = conn;
    Ok(out)
}
