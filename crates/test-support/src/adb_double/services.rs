//! The services the double opens (adbd's names): `shell,v2,…:CMD` with shell-v2 packets and an
//! exit status, `shell:CMD` (v1, raw), `exec:CMD` (stdout only) and `sync:`; anything else is
//! refused.

use std::sync::Arc;

use deft_adb::wire::shell;
use parking_lot::Mutex;

use super::config::{Action, Reply};
use super::device::{Device, Ran};
use super::stream::StreamIo;
use super::sync;

/// The most output one shell-v2 packet carries (adbd cuts its output into packets too).
const PACKET_DATA: usize = 64 * 1024;

/// A service the double offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Service {
    /// `shell[,args]:CMD`; `v2` when the args ask for the shell protocol.
    Shell { v2: bool, command: String },
    /// `exec:CMD`.
    Exec(String),
    /// `sync:`.
    Sync,
}

/// The service `name` asks for; `None` for what the double refuses (unknown services, an
/// interactive shell, the shell protocol v2 when it does not offer it: `shell_v2`).
pub(crate) fn parse(name: &str, shell_v2: bool) -> Option<Service> {
    if name == "sync:" {
        return Some(Service::Sync);
    }
    if let Some(command) = name.strip_prefix("exec:") {
        return Some(Service::Exec(command.to_owned()));
    }
    let (head, command) = name.split_once(':')?;
    let mut args = head.split(',');
    if args.next() != Some("shell") || command.is_empty() {
        return None;
    }
    let v2 = args.any(|arg| arg == "v2");
    if v2 && !shell_v2 {
        return None;
    }
    Some(Service::Shell {
        v2,
        command: command.to_owned(),
    })
}

/// Serves `service` on `io` until it is done or the stream closes.
pub(crate) async fn serve(service: Service, mut io: StreamIo, device: Arc<Mutex<Device>>) {
    let (command, v2, exec) = match service {
        Service::Sync => return sync::serve(io, device).await,
        Service::Exec(command) => (command, false, true),
        Service::Shell { v2, command } => (command, v2, false),
    };
    let ran = device.lock().run(&command);
    let action = match ran {
        Ran::Now(action) => action,
        // the delay is the stream's own: the connection's other streams go on meanwhile
        Ran::Later(reply, delay) => {
            tokio::time::sleep(delay).await;
            Action::Reply(reply)
        }
        Ran::Render(draw) => match tokio::task::spawn_blocking(draw).await {
            Ok(reply) => Action::Reply(reply),
            Err(e) => Action::Reply(Reply::failure(format!("screencap: {e}\n"), 1)),
        },
    };
    match action {
        Action::Reply(reply) => {
            let bytes = if v2 {
                let mut bytes = Vec::new();
                for (id, data) in [
                    (shell::STDOUT, &reply.stdout),
                    (shell::STDERR, &reply.stderr),
                ] {
                    for chunk in data.chunks(PACKET_DATA) {
                        bytes.extend(shell::encode(id, chunk));
                    }
                }
                bytes.extend(shell::encode(shell::EXIT, &[reply.exit]));
                bytes
            } else if exec {
                reply.stdout
            } else {
                [reply.stdout, reply.stderr].concat()
            };
            if io.write(&bytes).await {
                io.close();
            }
        }
        Action::Hang => while io.read().await.is_some() {},
        Action::DropConnection { partial } => {
            let bytes = if v2 {
                shell::encode(shell::STDOUT, &partial)
            } else {
                partial
            };
            if io.write(&bytes).await {
                io.drop_connection();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_names_are_read_as_adbd_reads_them() {
        assert_eq!(
            parse("shell,v2,TERM=xterm,raw:echo hi there", true),
            Some(Service::Shell {
                v2: true,
                command: "echo hi there".into()
            })
        );
        assert_eq!(
            parse("shell:ls", true),
            Some(Service::Shell {
                v2: false,
                command: "ls".into()
            })
        );
        assert_eq!(
            parse("exec:screencap -p", true),
            Some(Service::Exec("screencap -p".into()))
        );
        assert_eq!(parse("sync:", true), Some(Service::Sync));
        assert_eq!(
            parse("shell,v2,pty:", true),
            None,
            "interactive shells are refused"
        );
        assert_eq!(parse("jdwp:12", true), None);
        assert_eq!(parse("shellfish:x", true), None);
        assert_eq!(
            parse("shell,v2,raw:ls", false),
            None,
            "no v2 on an old phone"
        );
        assert!(parse("shell:ls", false).is_some());
    }
}
