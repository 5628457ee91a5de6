//! The double's device: what its commands print, the screen it shows, its files, and the
//! input it was sent.

use std::collections::HashMap;

use super::config::{Action, DoubleConfig, Reply};

/// Where `uiautomator dump` writes without a file argument.
pub const DEFAULT_DUMP: &str = "/sdcard/window_dump.xml";

/// One `input` command the double received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// `input tap X Y`.
    Tap(i64, i64),
    /// `input swipe X1 Y1 X2 Y2 [MS]`.
    Swipe(Vec<i64>),
    /// `input keyevent KEY` (a code or a `KEYCODE_` name, as sent).
    KeyEvent(String),
    /// `input text TEXT` (the argument as the shell passed it).
    Text(String),
}

/// The mutable state of a double.
#[derive(Debug)]
pub(crate) struct Device {
    config: DoubleConfig,
    screen: usize,
    /// Files `uiautomator dump` and `sync:` SEND wrote.
    pub(crate) files: HashMap<String, Vec<u8>>,
    /// The `input` commands, in order.
    pub(crate) inputs: Vec<Input>,
    /// Every command line and service it was asked to run, in order.
    pub(crate) commands: Vec<String>,
}

impl Device {
    pub(crate) fn new(config: DoubleConfig) -> Device {
        Device {
            config,
            screen: 0,
            files: HashMap::new(),
            inputs: Vec::new(),
            commands: Vec::new(),
        }
    }

    pub(crate) fn config(&self) -> &DoubleConfig {
        &self.config
    }

    /// The index of the screen a dump shows now.
    pub(crate) fn screen(&self) -> usize {
        self.screen
    }

    /// Runs `line` as the device's `sh -c` would.
    pub(crate) fn run(&mut self, line: &str) -> Action {
        self.commands.push(line.to_owned());
        if let Some(action) = self.config.commands.get(line) {
            return action.clone();
        }
        let Some(words) = shlex::split(line) else {
            return Action::Reply(Reply::failure(
                "/system/bin/sh: syntax error: unterminated quoted string\n",
                1,
            ));
        };
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        Action::Reply(match words.as_slice() {
            [] => Reply::default(),
            ["echo", rest @ ..] => Reply::stdout(format!("{}\n", rest.join(" "))),
            ["uiautomator", "dump", rest @ ..] => self.dump(rest.first().copied()),
            ["cat", path] => match self.files.get(*path) {
                Some(bytes) => Reply::stdout(bytes.clone()),
                None => Reply::failure(format!("cat: {path}: No such file or directory\n"), 1),
            },
            ["screencap", "-p"] => Reply::stdout(tiny_png()),
            ["input", rest @ ..] => self.input(rest),
            [program, ..] => not_found(program),
        })
    }

    /// `uiautomator dump [FILE]`: the current screen to FILE, or to stdout for `/dev/tty`.
    fn dump(&mut self, file: Option<&str>) -> Reply {
        let Some(xml) = self.config.screens.get(self.screen) else {
            return Reply::failure(
                "ERROR: null root node returned by UiTestAutomationBridge.\n",
                0,
            );
        };
        let file = file.unwrap_or(DEFAULT_DUMP);
        let done = format!("UI hierchary dumped to: {file}\n");
        if file == "/dev/tty" {
            return Reply::stdout(format!("{xml}{done}"));
        }
        self.files.insert(file.to_owned(), xml.clone().into_bytes());
        Reply::stdout(done)
    }

    /// `input …`: recorded, and the screen moves on if the config says so.
    fn input(&mut self, args: &[&str]) -> Reply {
        let numbers =
            |args: &[&str]| -> Option<Vec<i64>> { args.iter().map(|a| a.parse().ok()).collect() };
        let input = match args {
            ["tap", x, y] => numbers(&[x, y]).map(|n| Input::Tap(n[0], n[1])),
            ["swipe", rest @ ..] if (4..=5).contains(&rest.len()) => {
                numbers(rest).map(Input::Swipe)
            }
            ["keyevent", key] => Some(Input::KeyEvent((*key).to_owned())),
            ["text", text] => Some(Input::Text((*text).to_owned())),
            _ => None,
        };
        let Some(input) = input else {
            return Reply::failure(
                format!("Error: Invalid arguments for command: {}\n", args.join(" ")),
                1,
            );
        };
        self.inputs.push(input);
        if self.config.input_advances_screen && self.screen + 1 < self.config.screens.len() {
            self.screen += 1;
        }
        Reply::default()
    }
}

/// What Android's shell says for a program it does not have.
fn not_found(program: &str) -> Reply {
    Reply::failure(
        format!("/system/bin/sh: {program}: inaccessible or not found\n"),
        127,
    )
}

/// A valid 4×2 PNG (its signature holds `\r\n` and `\n` bytes, which a text pipe would break).
pub fn tiny_png() -> Vec<u8> {
    let image = image::RgbImage::from_fn(4, 2, |x, y| {
        image::Rgb([(x * 60) as u8, (y * 120) as u8, 0x0d])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap_or_else(|e| panic!("encoding the double's PNG: {e}"));
    out.into_inner()
}
