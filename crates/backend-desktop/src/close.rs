//! `close_app`: what belongs to an application (the processes of its windows, found by root
//! name, and the programs `launch_app` started for it — nothing else), closing its windows as a
//! person would, then ending what is left (SIGTERM, SIGKILL after a grace): the process's own
//! group when it leads one, never the managed desktop's group nor deft's own.

use std::collections::BTreeSet;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::{Value, json};

use crate::error::{ToolError, ToolResult};
use crate::launch::Launched;
use crate::proc::{self, Signal};
use crate::session::DesktopSession;
use crate::texts;

/// How long the processes get to exit after their windows were asked to close.
pub const CLOSE_WAIT: Duration = Duration::from_secs(3);

/// How long a process gets after SIGTERM before SIGKILL.
pub const TERM_GRACE: Duration = Duration::from_secs(2);

/// How long SIGKILL is given to take effect before the answer reports a survivor.
const KILL_WAIT: Duration = Duration::from_secs(2);

/// The programs `launch_app` started, with the root name they were started as.
#[derive(Debug, Default)]
pub(crate) struct Launches(Mutex<Vec<(String, Launched)>>);

impl Launches {
    /// Remembers a program `launch_app` started as `root`.
    pub(crate) fn record(&self, root: &str, launched: Launched) {
        let mut all = self.0.lock();
        all.retain(|(_, l)| l.exited().is_none());
        all.push((root.to_owned(), launched));
    }

    /// The pids of the programs started as one of `roots` that still run (not yet reaped, so
    /// the pid is still theirs).
    fn running(&self, roots: &BTreeSet<String>) -> Vec<i32> {
        self.0
            .lock()
            .iter()
            .filter(|(root, l)| roots.contains(root) && l.exited().is_none())
            .filter_map(|(_, l)| i32::try_from(l.pid).ok())
            .filter(|pid| proc::pid_alive(*pid))
            .collect()
    }
}

/// What a signal did to one process, for the answer.
struct Forced {
    pid: i32,
    signal: &'static str,
}

/// Closes the application known by `roots` (its root names: the resolved executable's basename
/// and the name as given); `app` is the name as given, for the texts. `protected` are process
/// groups never signalled as a whole (the managed desktop's).
pub(crate) async fn close_app(
    session: &DesktopSession,
    launches: &Launches,
    app: &str,
    roots: &BTreeSet<String>,
    protected: &[i32],
) -> ToolResult<Value> {
    let windows = session.windows_of(roots).await?;
    let mine = i32::try_from(std::process::id()).unwrap_or(i32::MAX);
    let own_group = rustix::process::getpgrp().as_raw_nonzero().get();
    let mut pids: BTreeSet<i32> = windows
        .iter()
        .filter_map(|w| w.pid.and_then(|p| i32::try_from(p).ok()))
        .chain(launches.running(roots))
        .collect();
    // Never deft itself, nor the leader of deft's group or of the desktop's.
    pids.retain(|p| *p >= 2 && *p != mine && *p != own_group && !protected.contains(p));
    if pids.is_empty() {
        return Err(ToolError::model(texts::close_nothing(app)));
    }
    let asked = ask_to_close(session, &pids).await?;
    // Processes whose windows were asked get time to exit; the others are ended at once.
    let mut left: Vec<i32> = pids
        .iter()
        .copied()
        .filter(|p| !asked.contains(p))
        .collect();
    let waited: Vec<i32> = pids.iter().copied().filter(|p| asked.contains(p)).collect();
    left.extend(proc::wait_exits(&waited, CLOSE_WAIT).await);
    let mut forced = Vec::new();
    let groups = [protected, &[own_group]].concat();
    for (signal, name, grace) in [
        (Signal::TERM, "SIGTERM", TERM_GRACE),
        (Signal::KILL, "SIGKILL", KILL_WAIT),
    ] {
        if left.is_empty() {
            break;
        }
        for &pid in &left {
            end(pid, signal, &groups);
            forced.push(Forced { pid, signal: name });
        }
        left = proc::wait_exits(&left, grace).await;
    }
    let ended: Vec<i32> = pids.iter().copied().filter(|p| !left.contains(p)).collect();
    let closed: Vec<Value> = windows
        .iter()
        .filter(|w| {
            w.pid
                .and_then(|p| i32::try_from(p).ok())
                .is_some_and(|p| ended.contains(&p))
        })
        .map(|w| json!({"id": w.id.to_string(), "name": w.name}))
        .collect();
    let mut out = json!({
        "closed_windows": closed,
        "ended_pids": ended,
        "forced": forced.iter().map(|f| json!({"pid": f.pid, "signal": f.signal})).collect::<Vec<_>>(),
        "message": texts::closed_app(app, closed.len(), ended.len(), forced.len()),
    });
    if !left.is_empty() {
        out["still_running"] = json!(left);
        out["warning"] = Value::String(texts::close_survivors(app, &left));
    }
    Ok(out)
}

/// Asks the window manager to close every top-level window of `pids`; answers the pids that
/// had one.
async fn ask_to_close(session: &DesktopSession, pids: &BTreeSet<i32>) -> ToolResult<BTreeSet<i32>> {
    let c = session.connected().await?;
    let x = c.x.clone();
    let pids = pids.clone();
    let asked = tokio::task::spawn_blocking(move || -> ToolResult<BTreeSet<i32>> {
        let mut asked = BTreeSet::new();
        for w in x.client_windows()? {
            let Some(pid) = w.pid.and_then(|p| i32::try_from(p).ok()) else {
                continue;
            };
            if pids.contains(&pid) {
                x.close(w.id)?;
                asked.insert(pid);
            }
        }
        Ok(asked)
    })
    .await??;
    Ok(asked)
}

/// Sends `signal` to the process's own group when it leads one that is not in `protected`,
/// else to the process alone.
fn end(pid: i32, signal: Signal, protected: &[i32]) {
    match proc::process_pgid(pid) {
        Some(group) if group == pid && !protected.contains(&group) => {
            proc::signal_group(group, signal);
        }
        _ => proc::signal(pid, signal),
    }
}
