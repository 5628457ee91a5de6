//! The double's device: what its commands print, the screen it shows, its files, and the
//! input it was sent.

use std::collections::HashMap;
use std::time::Duration;

use super::config::{Action, DoubleConfig, Reply};
use super::phone::{self, Phone};

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
    /// `input motionevent DOWN|MOVE|UP X Y` (one point of a gesture).
    Motion(String, i64, i64),
    /// `input keycombination KEY…` (keys pressed together).
    KeyCombination(Vec<String>),
}

/// What running a command line comes to.
pub(crate) enum Ran {
    /// Done now.
    Now(Action),
    /// This reply, once the time has passed (a slow dump).
    Later(Reply, Duration),
    /// A screenshot to draw off the double's event loop.
    Render(Box<dyn FnOnce() -> Reply + Send>),
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
    /// The simulated phone, in that mode.
    pub(crate) phone: Option<Phone>,
}

impl Device {
    pub(crate) fn new(config: DoubleConfig) -> Device {
        Device {
            phone: config
                .phone
                .clone()
                .map(|phone| Phone::new(phone, &config.model)),
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
    pub(crate) fn run(&mut self, line: &str) -> Ran {
        self.commands.push(line.to_owned());
        if let Some(action) = self.config.commands.get(line) {
            return Ran::Now(action.clone());
        }
        let parts = sequence(line);
        if parts.len() > 1 {
            // `a; b; c` as sh runs it: each in turn, outputs one after the other, the last's
            // exit status.
            let mut out = Reply::default();
            for part in parts {
                match self.run_one(part) {
                    Ran::Now(Action::Reply(r)) => {
                        out.stdout.extend(r.stdout);
                        out.stderr.extend(r.stderr);
                        out.exit = r.exit;
                    }
                    other => return other,
                }
            }
            return Ran::Now(Action::Reply(out));
        }
        self.run_one(line)
    }

    /// Runs one command (no `;` in it).
    fn run_one(&mut self, line: &str) -> Ran {
        let Some(words) = shlex::split(line) else {
            return Ran::Now(Action::Reply(Reply::failure(
                "/system/bin/sh: syntax error: unterminated quoted string\n",
                1,
            )));
        };
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        if self.phone.is_some()
            && let Some(ran) = self.run_on_phone(&words)
        {
            return ran;
        }
        Ran::Now(Action::Reply(match words.as_slice() {
            [] => Reply::default(),
            ["echo", rest @ ..] => Reply::stdout(format!("{}\n", rest.join(" "))),
            ["uiautomator", "dump", rest @ ..] => {
                let xml = self.config.screens.get(self.screen).cloned();
                self.dump(rest.first().copied(), xml.ok_or(NO_WINDOW))
            }
            ["ls", path] => match self.files.contains_key(*path) {
                true => Reply::stdout(format!("{path}\n")),
                false => Reply::failure(format!("ls: {path}: No such file or directory\n"), 1),
            },
            ["cat", path] => match self.files.get(*path) {
                Some(bytes) => Reply::stdout(bytes.clone()),
                None => Reply::failure(format!("cat: {path}: No such file or directory\n"), 1),
            },
            ["screencap", "-p"] => Reply::stdout(tiny_png()),
            ["input", rest @ ..] => self.input(rest),
            [program, ..] => not_found(program),
        }))
    }

    /// What the simulated phone does with `words`; `None` for the built-in commands.
    fn run_on_phone(&mut self, words: &[&str]) -> Option<Ran> {
        let phone = self.phone.as_mut()?;
        match words {
            ["uiautomator", "dump", rest @ ..] => {
                let latency = phone.dump_latency();
                let xml = phone.dump();
                let file = rest.iter().find(|a| !a.starts_with('-')).copied();
                Some(Ran::Later(self.dump(file, xml), latency))
            }
            ["screencap", "-p"] => {
                let (w, h, screen) = phone.screenshot();
                Some(Ran::Render(Box::new(move || {
                    Reply::stdout(phone::render(w, h, screen.as_ref()))
                })))
            }
            ["input", rest @ ..] => Some(Ran::Now(Action::Reply(self.input(rest)))),
            _ => phone
                .shell(words, &self.files)
                .map(|reply| Ran::Now(Action::Reply(reply))),
        }
    }

    /// `uiautomator dump [FILE]`: the screen `xml` to FILE, or to stdout for `/dev/tty`; the
    /// error a dump prints (exit status 0, as uiautomator exits).
    fn dump(&mut self, file: Option<&str>, xml: Result<String, &str>) -> Reply {
        let xml = match xml {
            Ok(xml) => xml,
            Err(said) => return Reply::failure(said, 0),
        };
        let file = file.unwrap_or(DEFAULT_DUMP);
        let done = format!("UI hierchary dumped to: {file}\n");
        if file == "/dev/tty" {
            return Reply::stdout(format!("{xml}{done}"));
        }
        self.files.insert(file.to_owned(), xml.into_bytes());
        Reply::stdout(done)
    }

    /// `input …`: recorded; then the simulated phone does it, or the screen moves on if the
    /// config says so.
    fn input(&mut self, args: &[&str]) -> Reply {
        let Some(inputs) = parse_input(args) else {
            return Reply::failure(
                format!("Error: Invalid arguments for command: {}\n", args.join(" ")),
                1,
            );
        };
        self.inputs.extend(inputs.iter().cloned());
        if let Some(phone) = self.phone.as_mut() {
            return inputs
                .iter()
                .map(|input| phone.input(input))
                .find(|reply| reply.exit != 0)
                .unwrap_or_default();
        }
        if self.config.input_advances_screen && self.screen + 1 < self.config.screens.len() {
            self.screen += 1;
        }
        Reply::default()
    }
}

/// What uiautomator says with no window to dump (a phone with no screens configured).
const NO_WINDOW: &str = "ERROR: null root node returned by UiTestAutomationBridge.\n";

/// The inputs an `input` command line asks for (`keyevent` may name several keys).
fn parse_input(args: &[&str]) -> Option<Vec<Input>> {
    let numbers =
        |args: &[&str]| -> Option<Vec<i64>> { args.iter().map(|a| a.parse().ok()).collect() };
    let one = match args {
        ["tap", x, y] => numbers(&[x, y]).map(|n| Input::Tap(n[0], n[1])),
        ["swipe", rest @ ..] if (4..=5).contains(&rest.len()) => numbers(rest).map(Input::Swipe),
        ["keyevent", keys @ ..] => {
            let keys: Vec<Input> = keys
                .iter()
                .filter(|k| !k.starts_with("--"))
                .map(|k| Input::KeyEvent((*k).to_owned()))
                .collect();
            return (!keys.is_empty()).then_some(keys);
        }
        ["text", text] => Some(Input::Text((*text).to_owned())),
        ["motionevent", action, x, y] => {
            numbers(&[x, y]).map(|n| Input::Motion((*action).to_owned(), n[0], n[1]))
        }
        ["keycombination", keys @ ..] if !keys.is_empty() => Some(Input::KeyCombination(
            keys.iter().map(|k| (*k).to_owned()).collect(),
        )),
        _ => None,
    };
    one.map(|input| vec![input])
}

/// The commands of `line` split at each `;` outside quotes (empty ones dropped).
fn sequence(line: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quote) = (0, None);
    for (i, c) in line.char_indices() {
        match (c, quote) {
            ('\'' | '"', None) => quote = Some(c),
            (c, Some(q)) if c == q => quote = None,
            (';', None) => {
                parts.push(&line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&line[start..]);
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
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

#[cfg(test)]
mod tests {
    use super::sequence;

    #[test]
    fn commands_split_at_semicolons_outside_quotes() {
        assert_eq!(
            sequence("getprop a; getprop b;getprop c"),
            vec!["getprop a", "getprop b", "getprop c"]
        );
        assert_eq!(
            sequence("echo 'a;b'; echo \"c;d\""),
            vec!["echo 'a;b'", "echo \"c;d\""]
        );
        assert_eq!(sequence("input tap 1 2"), vec!["input tap 1 2"]);
    }
}
