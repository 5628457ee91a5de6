//! `deft desktop start|stop|status`: the managed virtual desktop (a private Xvfb, D-Bus session,
//! AT-SPI bus and openbox with their own HOME), recorded in `desktop.json` in deft's data folder.
//! `deft exec`, `deft run` and `deft mcp desktop` use it when no `DISPLAY` is set.

use std::process::ExitCode;

use deft_backend_desktop::vdesktop::{self, DesktopStatus};

use crate::{Globals, paths};

/// `deft desktop` arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Start the managed desktop (does nothing when it already runs); prints its environment.
    Start,
    /// Stop it and every process it started.
    Stop,
    /// Say whether it runs, and which of its parts are alive.
    Status,
    /// Stop the desktop when process OWNER is gone (run by `deft serve` for the desktop it
    /// starts, so one that is killed outright leaves nothing behind).
    #[command(hide = true)]
    Watch {
        /// The process whose end stops the desktop.
        #[arg(long)]
        owner: i32,
    },
}

/// How often the watchdog looks at its owner.
const WATCH_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Runs the subcommand.
pub async fn run(args: Args, globals: &Globals) -> anyhow::Result<ExitCode> {
    let state_file = paths::desktop_state(&globals.data_dir);
    let work_dir = globals.data_dir.join(vdesktop::WORK_DIR);
    match args.action {
        Action::Start => {
            let (state, started) = vdesktop::start(&state_file, &work_dir).await?;
            if started {
                println!("started the managed desktop on {}", state.display);
            } else {
                println!("the managed desktop already runs on {}", state.display);
            }
            println!("state file: {}", state_file.display());
            println!("# for programs of your own on it:");
            for (k, v) in state.env() {
                if [
                    "DISPLAY",
                    "DBUS_SESSION_BUS_ADDRESS",
                    "AT_SPI_BUS_ADDRESS",
                    "HOME",
                ]
                .contains(&k.as_str())
                {
                    println!("export {k}='{v}'");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Watch { owner } => {
            while vdesktop::pid_alive(owner) {
                if !state_file.exists() {
                    // Stopped by its owner: nothing left to watch.
                    return Ok(ExitCode::SUCCESS);
                }
                tokio::time::sleep(WATCH_EVERY).await;
            }
            vdesktop::stop(&state_file)?;
            Ok(ExitCode::SUCCESS)
        }
        Action::Stop => match vdesktop::stop(&state_file)? {
            Some(state) => {
                println!(
                    "stopped the managed desktop on {} ({} processes)",
                    state.display,
                    state.pids.len()
                );
                Ok(ExitCode::SUCCESS)
            }
            None => {
                println!("no managed desktop runs (no {})", state_file.display());
                Ok(ExitCode::SUCCESS)
            }
        },
        Action::Status => match vdesktop::status(&state_file)? {
            DesktopStatus::NotStarted => {
                println!("not running (start it with `deft desktop start`)");
                Ok(ExitCode::from(3))
            }
            DesktopStatus::Stale(state) => {
                println!(
                    "not running: the desktop on {} has exited; `deft desktop start` cleans up and starts a new one",
                    state.display
                );
                Ok(ExitCode::from(3))
            }
            DesktopStatus::Running { state, alive, dead } => {
                println!("running on {}", state.display);
                println!("session bus: {}", state.session_bus);
                println!("accessibility bus: {}", state.a11y_bus);
                println!("home: {}", state.home.display());
                for part in &alive {
                    println!("  {part:13} pid {} alive", state.pids[part]);
                }
                for part in &dead {
                    println!("  {part:13} pid {} gone", state.pids[part]);
                }
                Ok(ExitCode::SUCCESS)
            }
        },
    }
}

/// `deft --data-dir DATA_DIR desktop watch --owner <this process>` in a process group of its own
/// (a Ctrl-C in the terminal is for its owner, which stops the desktop itself): stops the managed
/// desktop of `data_dir` when this process is killed outright.
pub(crate) fn spawn_watchdog(data_dir: &std::path::Path) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(std::env::current_exe()?);
    deft_tools::secrets::scrub_env(&mut cmd)
        .arg("--data-dir")
        .arg(data_dir)
        .args(["desktop", "watch", "--owner"])
        .arg(std::process::id().to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .process_group(0)
        .spawn()
}
