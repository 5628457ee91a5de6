//! `deft secret set NAME | list | delete NAME` against a `deft serve`: the secrets its tasks type
//! without showing (docs/tasks.md "Secrets"). A value is never taken from the command line,
//! which every process on the machine can read (`ps`): `set` reads it from stdin — a prompt that
//! does not echo on a terminal — or from an environment variable named with `--from-env`.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::Value;

use crate::cmd_devices::print_items;
use crate::cmd_task_server::{ServerArgs, text};

/// `deft secret` arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: SecretCommand,
}

#[derive(clap::Subcommand)]
enum SecretCommand {
    /// Create or replace a secret; its value from stdin (a prompt without echo on a terminal)
    /// or from --from-env, never from the command line.
    Set {
        /// The secret's name: a letter, then letters, digits and _ (LOGIN_PW).
        name: String,
        /// Take the value from this environment variable instead of stdin.
        #[arg(long, value_name = "VAR")]
        from_env: Option<String>,
        #[command(flatten)]
        server: ServerArgs,
    },
    /// List the secrets by name: who set each, when, and the tasks that use it.
    List {
        #[command(flatten)]
        server: ServerArgs,
        /// Print the JSON the server answers.
        #[arg(long)]
        json: bool,
    },
    /// Delete a secret (refused while a task uses it).
    Delete {
        /// The secret's name.
        name: String,
        #[command(flatten)]
        server: ServerArgs,
    },
}

/// Runs `deft secret …`.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        SecretCommand::Set {
            name,
            from_env,
            server,
        } => {
            let value = match from_env {
                Some(var) => std::env::var(&var)
                    .with_context(|| format!("the environment variable {var} is not set"))?,
                None => read_value(&name)?,
            };
            if value.is_empty() {
                bail!("the value of the secret {name} is empty: nothing was set");
            }
            server.client()?.set_secret(&name, &value).await?;
            eprintln!("secret {name} set");
        }
        SecretCommand::List { server, json } => {
            let secrets = server.client()?.secrets().await?;
            let header = ["NAME", "SET BY", "UPDATED", "USED BY"];
            print_items(&secrets, json, &header, secret_row)?;
        }
        SecretCommand::Delete { name, server } => {
            server.client()?.delete_secret(&name).await?;
            eprintln!("secret {name} deleted");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One secret's row: name, who set it, when, the tasks that use it.
fn secret_row(s: &Value) -> Vec<String> {
    let used: Vec<&str> = s["used_by"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    vec![
        text(s, "name"),
        text(s, "set_by"),
        text(s, "updated_at"),
        if used.is_empty() {
            "-".to_owned()
        } else {
            used.join(", ")
        },
    ]
}

/// The value from stdin: one line typed at a prompt that does not echo on a terminal, else
/// everything piped in without its final line break.
fn read_value(name: &str) -> anyhow::Result<String> {
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        let mut value = String::new();
        stdin
            .lock()
            .read_to_string(&mut value)
            .context("cannot read the secret's value from stdin")?;
        let trimmed = value
            .strip_suffix('\n')
            .map(|v| v.strip_suffix('\r').unwrap_or(v));
        return Ok(trimmed.unwrap_or(&value).to_owned());
    }
    eprint!("value of {name} (not shown): ");
    std::io::stderr().flush().ok();
    let echo = NoEcho::start(&stdin)?;
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    drop(echo);
    eprintln!();
    read.context("cannot read the secret's value")?;
    Ok(line.trim_end_matches(['\n', '\r']).to_owned())
}

/// The terminal's echo off until dropped.
struct NoEcho<'a> {
    stdin: &'a std::io::Stdin,
    before: rustix::termios::Termios,
}

impl<'a> NoEcho<'a> {
    fn start(stdin: &'a std::io::Stdin) -> anyhow::Result<Self> {
        use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};
        let before = tcgetattr(stdin).context("cannot read the terminal's settings")?;
        let mut quiet = before.clone();
        quiet.local_modes.remove(LocalModes::ECHO);
        tcsetattr(stdin, OptionalActions::Now, &quiet)
            .context("cannot turn the terminal's echo off")?;
        Ok(NoEcho { stdin, before })
    }
}

impl Drop for NoEcho<'_> {
    fn drop(&mut self) {
        let _ = rustix::termios::tcsetattr(
            self.stdin,
            rustix::termios::OptionalActions::Now,
            &self.before,
        );
    }
}
