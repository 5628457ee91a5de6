//! One phone through the adb server: its screen read (`uiautomator dump` straight to the
//! shell's stdout, no file on the phone, unless the build cannot write to `/dev/tty`), its foreground app, what it is told to do (`input`), its
//! screenshot, its screen's power and its apps. Every command's output is checked the way
//! phones need: `input` exits 0 while printing a `SecurityException` on some builds, and
//! `uiautomator` prints its errors with exit status 0.

use std::time::Duration;

use deft_adb::{AdbClient, AdbError, ShellOutput, quote_command};

use crate::device::{parse_packages, parse_screen_on, parse_screen_size};
use crate::focus::{Focus, parse_focus};
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
    /// Text `input text` cannot type (non-ASCII) reached it.
    #[error("{}", texts::not_ascii(.0))]
    NotAscii(String),
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
        match parse_dump(&text(&out.stdout)) {
            Ok(screen) => Ok(screen),
            Err(DumpError::Failed(_) | DumpError::Empty) if !out.stderr.is_empty() => {
                let said = text(&out.stderr);
                let first = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                Err(DumpError::Failed(first.trim().to_owned()).into())
            }
            Err(DumpError::Empty) => {
                let dumped = self.sh(&["uiautomator", "dump", DUMP_FILE]).await?;
                if !text(&dumped.stdout).contains("dumped to") {
                    let said = format!("{}{}", text(&dumped.stderr), text(&dumped.stdout));
                    return Err(DumpError::Failed(said.trim().to_owned()).into());
                }
                let xml = self.sh(&["cat", DUMP_FILE]).await?;
                Ok(parse_dump(&text(&xml.stdout))?)
            }
            Err(other) => Err(other.into()),
        }
    }

    /// The foreground app and window.
    pub async fn focus(&self) -> Result<Focus, PhoneError> {
        let displays = self.sh(&["dumpsys", "window", "displays"]).await?;
        let focus = parse_focus(&text(&displays.stdout));
        if focus != Focus::default() {
            return Ok(focus);
        }
        // Android 9 and older print the focus under `windows`.
        let windows = self.sh(&["dumpsys", "window", "windows"]).await?;
        Ok(parse_focus(&text(&windows.stdout)))
    }

    /// The screen's size in pixels (`wm size`; the override when one is set).
    pub async fn screen_size(&self) -> Result<Option<(u32, u32)>, PhoneError> {
        let out = self.sh(&["wm", "size"]).await?;
        Ok(parse_screen_size(&text(&out.stdout)))
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

    /// Does one planned input: ASCII text with `input text`, a key, or keys together
    /// (`input keycombination`, Android 13+). Other text is [`PhoneError::NotAscii`]: it needs
    /// an input method.
    pub async fn send(&self, input: &PhoneInput) -> Result<(), PhoneError> {
        match input {
            PhoneInput::Text(t) => self.input(&["text", &input_text_arg(t)]).await,
            PhoneInput::Unicode(t) => Err(PhoneError::NotAscii(t.clone())),
            PhoneInput::Key(code) => self.key(*code).await,
            PhoneInput::Combination(codes) => {
                let mut args = vec!["keycombination".to_owned()];
                args.extend(codes.iter().map(u32::to_string));
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                self.input(&args).await
            }
        }
    }

    /// A PNG of the screen (`screencap -p`, bytes intact).
    pub async fn screenshot(&self) -> Result<Vec<u8>, PhoneError> {
        Ok(self.adb.exec_out(&self.serial, "screencap -p").await?)
    }

    /// Whether the screen is on (`None` when `dumpsys power` says nothing known).
    pub async fn screen_on(&self) -> Result<Option<bool>, PhoneError> {
        let out = self.sh(&["dumpsys", "power"]).await?;
        Ok(parse_screen_on(&text(&out.stdout)))
    }

    /// Turns the screen on (`true`) or off.
    pub async fn set_screen(&self, on: bool) -> Result<(), PhoneError> {
        self.key(if on { keycode::WAKEUP } else { keycode::SLEEP })
            .await
    }

    /// The installed packages (`pm list packages`).
    pub async fn packages(&self) -> Result<Vec<String>, PhoneError> {
        let out = self.sh(&["pm", "list", "packages"]).await?;
        Ok(parse_packages(&text(&out.stdout)))
    }

    /// Stops an app (`am force-stop`).
    pub async fn stop_app(&self, package: &str) -> Result<(), PhoneError> {
        let out = self.sh(&["am", "force-stop", package]).await?;
        refused_if_it_says_so(&["am", "force-stop", package], &out)
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
    let said = format!("{}{}", text(&out.stderr), text(&out.stdout));
    let complains = said.contains("Exception") || said.lines().any(|l| l.starts_with("Error"));
    if out.exit_code != 0 || complains {
        return Err(PhoneError::Refused {
            command: argv.join(" "),
            said: said.trim().to_owned(),
        });
    }
    Ok(())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
