//! One phone through the adb server: its screen read (`uiautomator dump` straight to the
//! shell's stdout, no file on the phone, unless the build cannot write to `/dev/tty`), its foreground app, what it is told to do (`input`), its
//! screenshot, its screen's power and its apps. Every command's output is checked the way
//! phones need: `input` exits 0 while printing a `SecurityException` on some builds, and
//! `uiautomator` prints its errors with exit status 0.

use std::time::Duration;

use deft_adb::{AdbClient, AdbError, ShellOutput, quote_command};

use crate::device::{parse_packages, parse_screen_on, parse_screen_size};
use crate::focus::{Focus, parse_focus};
use crate::ime::{self, TypeRoute};
use crate::input::{PhoneInput, input_text_arg, keycode};
use crate::texts;
use crate::ui_tree::{DumpError, UiScreen, parse_dump};

/// How often a dump is tried when the screen does not settle (an animation, a spinner).
const DUMP_TRIES: u32 = 3;
/// Where a dump goes when it cannot go to `/dev/tty`.
const DUMP_FILE: &str = "/data/local/tmp/deft-window.xml";
/// The pause before the first retry (doubled each time).
const DUMP_BACKOFF: Duration = Duration::from_millis(500);

/// What went wrong with a phone.
#[derive(Debug, thiserror::Error)]
pub enum PhoneError {
    /// The adb server or the connection to the phone failed.
    #[error(transparent)]
    Adb(#[from] AdbError),
    /// The screen could not be read.
    #[error(transparent)]
    Dump(#[from] DumpError),
    /// The phone refused a command (it printed an exception or an error).
    #[error("{}", texts::refused(command, said))]
    Refused {
        /// The command.
        command: String,
        /// What the phone said.
        said: String,
    },
    /// Text `input text` cannot type (non-ASCII), and the phone has no input method that
    /// takes text from adb (ADBKeyBoard).
    #[error("{}", texts::no_input_method(.0))]
    NoInputMethod(String),
    /// No installed app has this package (or it has no launcher activity).
    #[error("{}", texts::no_such_app(.0))]
    NoSuchApp(String),
}

/// Where ADBKeyBoard stands on a phone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ImeState {
    /// Enabled: it can be selected.
    Enabled,
    /// Installed but not enabled: it is enabled for the typing, and disabled again after.
    Installed,
}

/// A phone of the adb server, by serial.
#[derive(Debug, Clone)]
pub struct Phone {
    adb: AdbClient,
    serial: String,
}

impl Phone {
    /// The phone `serial` of the server `adb` talks to.
    pub fn new(adb: AdbClient, serial: impl Into<String>) -> Phone {
        Phone {
            adb,
            serial: serial.into(),
        }
    }

    /// Its serial.
    pub fn serial(&self) -> &str {
        &self.serial
    }

    /// The screen as `uiautomator dump` sees it; a screen that does not settle is tried again
    /// a few times, with growing pauses.
    pub async fn screen(&self) -> Result<UiScreen, PhoneError> {
        let mut pause = DUMP_BACKOFF;
        let mut tries = 1;
        loop {
            match self.dump_once().await {
                Err(PhoneError::Dump(DumpError::Failed(why)))
                    if why.contains("idle state") && tries < DUMP_TRIES =>
                {
                    tokio::time::sleep(pause).await;
                    pause *= 2;
                    tries += 1;
                }
                read => return read,
            }
        }
    }

    /// One dump, straight to the shell's stdout (no file on the phone); a build that cannot
    /// write to `/dev/tty` prints nothing, and then the dump goes through a file.
    async fn dump_once(&self) -> Result<UiScreen, PhoneError> {
        let out = self.sh(&["uiautomator", "dump", "/dev/tty"]).await?;
        match parse_dump(&text_of(&out.stdout)) {
            Ok(screen) => Ok(screen),
            Err(DumpError::Failed(_) | DumpError::Empty) if !out.stderr.is_empty() => {
                let said = text_of(&out.stderr);
                let first = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                Err(DumpError::Failed(first.trim().to_owned()).into())
            }
            Err(DumpError::Empty) => {
                let dumped = self.sh(&["uiautomator", "dump", DUMP_FILE]).await?;
                if !text_of(&dumped.stdout).contains("dumped to") {
                    let said = format!("{}{}", text_of(&dumped.stderr), text_of(&dumped.stdout));
                    return Err(DumpError::Failed(said.trim().to_owned()).into());
                }
                let xml = self.sh(&["cat", DUMP_FILE]).await?;
                Ok(parse_dump(&text_of(&xml.stdout))?)
            }
            Err(other) => Err(other.into()),
        }
    }

    /// The foreground app and window.
    pub async fn focus(&self) -> Result<Focus, PhoneError> {
        let displays = self.sh(&["dumpsys", "window", "displays"]).await?;
        let focus = parse_focus(&text_of(&displays.stdout));
        if focus != Focus::default() {
            return Ok(focus);
        }
        // Android 9 and older print the focus under `windows`.
        let windows = self.sh(&["dumpsys", "window", "windows"]).await?;
        Ok(parse_focus(&text_of(&windows.stdout)))
    }

    /// The screen's size in pixels (`wm size`; the override when one is set).
    pub async fn screen_size(&self) -> Result<Option<(u32, u32)>, PhoneError> {
        let out = self.sh(&["wm", "size"]).await?;
        Ok(parse_screen_size(&text_of(&out.stdout)))
    }

    /// Taps at `(x, y)`.
    pub async fn tap(&self, x: i32, y: i32) -> Result<(), PhoneError> {
        self.input(&["tap", &x.to_string(), &y.to_string()]).await
    }

    /// Swipes from `(x1, y1)` to `(x2, y2)` in `ms` milliseconds (the same point: a long press).
    pub async fn swipe(&self, from: (i32, i32), to: (i32, i32), ms: u32) -> Result<(), PhoneError> {
        let n = |v: i32| v.to_string();
        self.input(&[
            "swipe",
            &n(from.0),
            &n(from.1),
            &n(to.0),
            &n(to.1),
            &ms.to_string(),
        ])
        .await
    }

    /// Presses and releases a key (an Android key code).
    pub async fn key(&self, code: u32) -> Result<(), PhoneError> {
        self.input(&["keyevent", &code.to_string()]).await
    }

    /// Presses and releases keys one after the other in one command (`input keyevent A B …`).
    pub async fn keys(&self, codes: &[u32]) -> Result<(), PhoneError> {
        let mut args = vec!["keyevent".to_owned()];
        args.extend(codes.iter().map(u32::to_string));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        self.input(&args).await
    }

    /// Does one planned input: text (ASCII by `input text`, the rest through ADBKeyBoard), a
    /// key, or keys together (`input keycombination`, Android 13+).
    pub async fn send(&self, input: &PhoneInput) -> Result<(), PhoneError> {
        match input {
            PhoneInput::Text(t) | PhoneInput::Unicode(t) => self.type_text(t).await.map(|_| ()),
            PhoneInput::Key(code) => self.key(*code).await,
            PhoneInput::Combination(codes) => {
                let mut args = vec!["keycombination".to_owned()];
                args.extend(codes.iter().map(u32::to_string));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                self.input(&args).await
            }
        }
    }

    /// Types `text` into the focused field: printable ASCII with `input text`, anything else
    /// through ADBKeyBoard (selected for the typing, the phone's keyboard put back after it).
    /// Long text goes in pieces. Answers the route taken.
    pub async fn type_text(&self, text: &str) -> Result<TypeRoute, PhoneError> {
        if ime::input_text_can_type(text) {
            for chunk in ime::chunks(text, ime::INPUT_TEXT_CHARS) {
                self.input(&["text", &input_text_arg(&chunk)]).await?;
            }
            return Ok(TypeRoute::InputText);
        }
        let ime = self.adb_keyboard(text).await?;
        let current = self
            .sh(&["settings", "get", "secure", "default_input_method"])
            .await?;
        let current = text_of(&current.stdout).trim().to_owned();
        if ime == ImeState::Installed {
            self.checked(&["ime", "enable", ime::ADB_IME]).await?;
        }
        if current != ime::ADB_IME {
            self.checked(&["ime", "set", ime::ADB_IME]).await?;
        }
        let typed = self.broadcast_text(text).await;
        // Put the person's keyboard back as it was, even when the typing failed.
        if current != ime::ADB_IME && !current.is_empty() && current != "null" {
            self.checked(&["ime", "set", &current]).await?;
        }
        if ime == ImeState::Installed {
            self.checked(&["ime", "disable", ime::ADB_IME]).await?;
        }
        typed.map(|()| TypeRoute::AdbKeyboard)
    }

    /// The route `text` would take, checked without typing: an error when it needs
    /// ADBKeyBoard and the phone has none (so a caller refuses before it changes anything).
    pub async fn input_route(&self, text: &str) -> Result<TypeRoute, PhoneError> {
        if ime::input_text_can_type(text) {
            return Ok(TypeRoute::InputText);
        }
        self.adb_keyboard(text)
            .await
            .map(|_| TypeRoute::AdbKeyboard)
    }

    /// Whether ADBKeyBoard is enabled, or only installed; an error naming `text` when neither.
    async fn adb_keyboard(&self, text: &str) -> Result<ImeState, PhoneError> {
        let enabled = self.sh(&["ime", "list", "-s"]).await?;
        refused_if_it_says_so(&["ime", "list", "-s"], &enabled)?;
        if ime::lists_adb_ime(&text_of(&enabled.stdout)) {
            return Ok(ImeState::Enabled);
        }
        let all = self.sh(&["ime", "list", "-a", "-s"]).await?;
        if all.exit_code == 0 && ime::lists_adb_ime(&text_of(&all.stdout)) {
            return Ok(ImeState::Installed);
        }
        Err(PhoneError::NoInputMethod(text.to_owned()))
    }

    /// Sends `text` to ADBKeyBoard in pieces, each checked as delivered.
    async fn broadcast_text(&self, text: &str) -> Result<(), PhoneError> {
        for chunk in ime::chunks(text, ime::BROADCAST_CHARS) {
            let argv = ime::broadcast_argv(&chunk);
            let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
            let out = self.sh(&argv).await?;
            refused_if_it_says_so(&argv[..4], &out)?;
            if !ime::broadcast_delivered(&text_of(&out.stdout)) {
                return Err(PhoneError::Refused {
                    command: argv[..4].join(" "),
                    said: text_of(&out.stdout).trim().to_owned(),
                });
            }
        }
        Ok(())
    }

    /// Opens an app by package at its launcher activity (`monkey -p PKG -c
    /// android.intent.category.LAUNCHER 1`: brings a running app to the front, starts it
    /// otherwise).
    pub async fn launch(&self, package: &str) -> Result<(), PhoneError> {
        let argv = [
            "monkey",
            "-p",
            package,
            "-c",
            "android.intent.category.LAUNCHER",
            "1",
        ];
        let out = self.sh(&argv).await?;
        let said = format!("{}{}", text_of(&out.stdout), text_of(&out.stderr));
        if said.contains("No activities found") || said.contains("monkey aborted") {
            return Err(PhoneError::NoSuchApp(package.to_owned()));
        }
        refused_if_it_says_so(&argv, &out)
    }

    /// Installs (or updates) the APK `bytes`, named `name`: pushed to `/data/local/tmp`,
    /// `pm install -r -t`, removed again whatever the outcome. `pm`'s `Failure [...]` is a
    /// refusal with its reason.
    pub async fn install(&self, name: &str, bytes: &[u8]) -> Result<(), PhoneError> {
        let safe: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || ".-_".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let remote = format!("/data/local/tmp/{safe}");
        self.adb.push(&self.serial, &remote, bytes, 0o644).await?;
        let argv = ["pm", "install", "-r", "-t", remote.as_str()];
        let out = self.sh(&argv).await;
        let _ = self.sh(&["rm", "-f", &remote]).await;
        let out = out?;
        let said = format!("{}{}", text_of(&out.stdout), text_of(&out.stderr));
        if out.exit_code != 0 || !said.contains("Success") {
            return Err(PhoneError::Refused {
                command: argv[..4].join(" "),
                said: said.trim().to_owned(),
            });
        }
        Ok(())
    }

    /// Opens `url` with the app that handles it (`am start -a android.intent.action.VIEW -d
    /// URL`): a web page in the browser, a deep link in its app. A link no app handles is
    /// refused with what `am` said.
    pub async fn view_url(&self, url: &str) -> Result<(), PhoneError> {
        self.checked(&["am", "start", "-a", "android.intent.action.VIEW", "-d", url])
            .await
    }

    /// Whether the file `path` is on the phone (`ls` finds it).
    pub async fn has_file(&self, path: &str) -> Result<bool, PhoneError> {
        Ok(self.sh(&["ls", path]).await?.exit_code == 0)
    }

    /// Writes `bytes` to the phone's file `path` (readable by all: `rw-r--r--`).
    pub async fn put_file(&self, path: &str, bytes: &[u8]) -> Result<(), PhoneError> {
        Ok(self.adb.push(&self.serial, path, bytes, 0o644).await?)
    }

    /// Runs the Java class `class` of the dex file `dex` as the shell user (`CLASSPATH=DEX
    /// app_process / CLASS ARGS`), checked; its stdout.
    pub async fn run_dex(
        &self,
        dex: &str,
        class: &str,
        args: &[&str],
    ) -> Result<String, PhoneError> {
        let mut argv = vec!["app_process", "/", class];
        argv.extend_from_slice(args);
        let line = format!(
            "CLASSPATH={} {}",
            quote_command(&[dex])?,
            quote_command(&argv)?
        );
        let out = self.adb.shell(&self.serial, &line).await?;
        refused_if_it_says_so(&argv[..3], &out)?;
        Ok(text_of(&out.stdout))
    }

    /// Keeps the screen on while plugged in (`svc power stayon MODE`: `true`, `false`, `usb`,
    /// `ac`, `wireless`).
    pub async fn stay_on(&self, mode: &str) -> Result<(), PhoneError> {
        self.checked(&["svc", "power", "stayon", mode]).await
    }

    /// A touch along `points` (`input motionevent DOWN`, `MOVE`s, `UP`): a gesture through
    /// more than two points, which `input swipe` cannot draw.
    pub async fn gesture(&self, points: &[(i32, i32)]) -> Result<(), PhoneError> {
        let last = points.len().saturating_sub(1);
        for (i, (x, y)) in points.iter().enumerate() {
            let action = match i {
                0 => "DOWN",
                i if i == last => "UP",
                _ => "MOVE",
            };
            self.input(&["motionevent", action, &x.to_string(), &y.to_string()])
                .await?;
        }
        Ok(())
    }

    /// A PNG of the screen (`screencap -p`, bytes intact).
    pub async fn screenshot(&self) -> Result<Vec<u8>, PhoneError> {
        Ok(self.adb.exec_out(&self.serial, "screencap -p").await?)
    }

    /// Whether the screen is on (`None` when `dumpsys power` says nothing known).
    pub async fn screen_on(&self) -> Result<Option<bool>, PhoneError> {
        let out = self.sh(&["dumpsys", "power"]).await?;
        Ok(parse_screen_on(&text_of(&out.stdout)))
    }

    /// Turns the screen on (`true`) or off.
    pub async fn set_screen(&self, on: bool) -> Result<(), PhoneError> {
        self.key(if on { keycode::WAKEUP } else { keycode::SLEEP })
            .await
    }

    /// The installed packages (`pm list packages`).
    pub async fn packages(&self) -> Result<Vec<String>, PhoneError> {
        let out = self.sh(&["pm", "list", "packages"]).await?;
        Ok(parse_packages(&text_of(&out.stdout)))
    }

    /// Stops an app (`am force-stop`).
    pub async fn stop_app(&self, package: &str) -> Result<(), PhoneError> {
        let out = self.sh(&["am", "force-stop", package]).await?;
        refused_if_it_says_so(&["am", "force-stop", package], &out)
    }

    /// Runs `argv`, checked.
    async fn checked(&self, argv: &[&str]) -> Result<(), PhoneError> {
        let out = self.sh(argv).await?;
        refused_if_it_says_so(argv, &out)
    }

    /// `input ARGS`, checked.
    async fn input(&self, args: &[&str]) -> Result<(), PhoneError> {
        let mut argv = vec!["input"];
        argv.extend_from_slice(args);
        let out = self.sh(&argv).await?;
        refused_if_it_says_so(&argv, &out)
    }

    /// Runs `argv` in the phone's shell, quoted.
    async fn sh(&self, argv: &[&str]) -> Result<ShellOutput, PhoneError> {
        let line = quote_command(argv)?;
        Ok(self.adb.shell(&self.serial, &line).await?)
    }
}

/// A command that failed, or printed an exception while exiting 0 (as `input` does on phones
/// that forbid injecting events), is refused with what it said.
fn refused_if_it_says_so(argv: &[&str], out: &ShellOutput) -> Result<(), PhoneError> {
    let said = format!("{}{}", text_of(&out.stderr), text_of(&out.stdout));
    let complains = said.contains("Exception") || said.lines().any(|l| l.starts_with("Error"));
    if out.exit_code != 0 || complains {
        return Err(PhoneError::Refused {
            command: argv.join(" "),
            said: said.trim().to_owned(),
        });
    }
    Ok(())
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
