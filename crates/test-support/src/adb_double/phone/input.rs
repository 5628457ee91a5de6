//! What `input` does on the simulated phone: a tap reaches the deepest clickable view under
//! it, a swipe that starts and ends at one point is a tap (or, held 500 ms or more, a long
//! press), a vertical one scrolls the scrollable view it starts on; a `motionevent` DOWN…UP is
//! a tap or a swipe; keys go HOME, BACK, to recents, delete, copy and paste (COPY, PASTE,
//! Ctrl+C, Ctrl+V), and turn the screen on and off;
//! `input text` types ASCII (`%s` a space) and refuses anything else as Android does.

use super::Phone;
use super::apps::Hit;
use crate::adb_double::config::Reply;
use crate::adb_double::device::Input;

/// Android key codes the phone reacts to.
mod keycode {
    pub(super) const HOME: u32 = 3;
    pub(super) const BACK: u32 = 4;
    pub(super) const POWER: u32 = 26;
    pub(super) const C: u32 = 31;
    pub(super) const V: u32 = 50;
    pub(super) const DEL: u32 = 67;
    pub(super) const CTRL_LEFT: u32 = 113;
    pub(super) const CTRL_RIGHT: u32 = 114;
    pub(super) const COPY: u32 = 278;
    pub(super) const PASTE: u32 = 279;
    pub(super) const APP_SWITCH: u32 = 187;
    pub(super) const SLEEP: u32 = 223;
    pub(super) const WAKEUP: u32 = 224;
}

/// `KeyEvent.keyCodeFromString`: a number, or a name with or without `KEYCODE_`.
pub(crate) fn key_code(key: &str) -> Option<u32> {
    if let Ok(code) = key.parse() {
        return Some(code);
    }
    let name = key.strip_prefix("KEYCODE_").unwrap_or(key);
    let code = match name {
        "HOME" => keycode::HOME,
        "BACK" => keycode::BACK,
        "VOLUME_UP" => 24,
        "VOLUME_DOWN" => 25,
        "POWER" => keycode::POWER,
        "TAB" => 61,
        "SPACE" => 62,
        "ENTER" => 66,
        "DEL" => keycode::DEL,
        "MENU" => 82,
        "ESCAPE" => 111,
        "FORWARD_DEL" => 112,
        "APP_SWITCH" => keycode::APP_SWITCH,
        "C" => keycode::C,
        "V" => keycode::V,
        "CTRL_LEFT" => keycode::CTRL_LEFT,
        "CTRL_RIGHT" => keycode::CTRL_RIGHT,
        "COPY" => keycode::COPY,
        "PASTE" => keycode::PASTE,
        "SLEEP" => keycode::SLEEP,
        "WAKEUP" => keycode::WAKEUP,
        _ => return None,
    };
    Some(code)
}

/// How far a finger may move and still tap.
const TAP_SLOP: i64 = 16;
/// How long a press must be held to be a long press.
const LONG_PRESS_MS: i64 = 500;

/// What Android prints when `input text` gets a character its virtual keyboard map lacks.
const TEXT_NPE: &str = "Exception occurred while executing 'text':\n\
java.lang.NullPointerException: Attempt to get length of null array\n\
\tat com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:314)\n\
\tat com.android.server.input.InputShellCommand.runText(InputShellCommand.java:283)\n";

impl Phone {
    /// Does one recorded `input` command.
    pub(crate) fn input(&mut self, input: &Input) -> Reply {
        if let Input::KeyEvent(key) = input {
            return self.key(key);
        }
        if !self.awake {
            return Reply::default(); // a dark screen takes no touches
        }
        match input {
            Input::Tap(x, y) => self.tap(*x, *y),
            Input::Swipe(points) => self.swipe(points),
            Input::Motion(action, x, y) => self.motion(action, *x, *y),
            Input::Text(text) => return self.text(text),
            Input::KeyCombination(keys) => self.combination(keys),
            Input::KeyEvent(_) => {}
        }
        Reply::default()
    }

    fn key(&mut self, key: &str) -> Reply {
        let Some(code) = key_code(key) else {
            return Reply::default(); // a key no app here reacts to
        };
        match code {
            keycode::WAKEUP => self.set_awake(true),
            keycode::SLEEP => self.set_awake(false),
            keycode::POWER => self.set_awake(!self.awake),
            _ if !self.awake => {}
            keycode::HOME => self.home(),
            keycode::BACK => self.back(),
            keycode::APP_SWITCH => self.recents(),
            keycode::DEL => self.delete_char(),
            keycode::COPY => self.copy(),
            keycode::PASTE => self.paste(),
            _ => {}
        }
        Reply::default()
    }

    /// `input keycombination`: Ctrl+C copies, Ctrl+V pastes; no other chord does anything here.
    fn combination(&mut self, keys: &[String]) {
        let codes: Vec<u32> = keys.iter().filter_map(|k| key_code(k)).collect();
        let ctrl = codes
            .iter()
            .any(|c| [keycode::CTRL_LEFT, keycode::CTRL_RIGHT].contains(c));
        match codes.last() {
            Some(&keycode::C) if ctrl => self.copy(),
            Some(&keycode::V) if ctrl => self.paste(),
            _ => {}
        }
    }

    fn set_awake(&mut self, awake: bool) {
        if self.awake != awake {
            self.awake = awake;
            self.changed();
        }
    }

    /// A tap at `(x, y)`: the deepest clickable view there gets it.
    fn tap(&mut self, x: i64, y: i64) {
        let screen = self.screen();
        let Some(view) = screen.hit(x as i32, y as i32, |v| v.clickable && v.enabled) else {
            return;
        };
        if self.recents.is_some() {
            return; // the recorded overlay's cards lead nowhere
        }
        let effect = self.front_mut().tap(&Hit::of(view));
        self.changed();
        self.apply(effect);
    }

    /// `input swipe X1 Y1 X2 Y2 [MS]`.
    fn swipe(&mut self, points: &[i64]) {
        let [x1, y1, x2, y2, rest @ ..] = points else {
            return;
        };
        let held = rest.first().copied().unwrap_or(300);
        let still = (x1 - x2).abs() <= TAP_SLOP && (y1 - y2).abs() <= TAP_SLOP;
        if still && held >= LONG_PRESS_MS {
            return; // a long press: no app here has a long-press action
        }
        if still {
            return self.tap(*x1, *y1);
        }
        if (y1 - y2).abs() > (x1 - x2).abs() {
            self.scroll(*x1, *y1, (y1 - y2) as i32);
        }
    }

    /// A vertical swipe of `dy` starting at `(x, y)`: the scrollable view under it scrolls.
    fn scroll(&mut self, x: i64, y: i64, dy: i32) {
        let screen = self.screen();
        let Some(list) = screen.hit(x as i32, y as i32, |v| v.scrollable) else {
            return;
        };
        let id = list.id.clone();
        let size = self.size();
        if self.recents.is_none() && self.front_mut().scroll(&id, dy, size) {
            self.changed();
        }
    }

    /// `input motionevent DOWN|MOVE|UP X Y`: a DOWN…UP pair is a tap or a swipe.
    fn motion(&mut self, action: &str, x: i64, y: i64) {
        match action.to_ascii_uppercase().as_str() {
            "DOWN" => self.gesture = Some((x as i32, y as i32)),
            "UP" | "CANCEL" => {
                if let Some((x0, y0)) = self.gesture.take()
                    && action.eq_ignore_ascii_case("UP")
                {
                    self.swipe(&[i64::from(x0), i64::from(y0), x, y, 100]);
                }
            }
            _ => {}
        }
    }

    /// `input text ARG`: ASCII typed into the focused field (`%s` a space); anything else
    /// fails as on a phone, typing nothing.
    fn text(&mut self, text: &str) -> Reply {
        if !text.is_ascii() {
            return Reply::failure(TEXT_NPE, 255);
        }
        self.type_text(&text.replace("%s", " "));
        Reply::default()
    }
}
