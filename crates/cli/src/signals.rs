//! Stop requests: Ctrl-C (SIGINT) in a terminal, SIGTERM from `kill`, systemd, `docker stop`
//! or `timeout`. Every long-running command stops cleanly on either (a `deft serve` that started
//! the managed desktop stops it too, instead of leaving Xvfb and its buses behind).

use tokio::signal::unix::{Signal, SignalKind, signal};

/// Installed handlers for SIGINT and SIGTERM. A signal that arrives after [`StopSignals::install`]
/// is kept until [`StopSignals::recv`] looks, so a command that installs them before it announces
/// itself never dies of a stop request sent right after the announcement.
pub struct StopSignals {
    interrupt: Signal,
    terminate: Signal,
}

impl StopSignals {
    /// Installs the handlers (from then on the signals no longer kill the process).
    pub fn install() -> std::io::Result<StopSignals> {
        Ok(StopSignals {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// Resolves at the first SIGINT or SIGTERM since the handlers were installed.
    pub async fn recv(mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}

/// Resolves when the process is asked to stop (SIGINT or SIGTERM). An error means no handler
/// could be installed; the caller then never sees a stop request.
pub async fn stop_requested() -> std::io::Result<()> {
    StopSignals::install()?.recv().await;
    Ok(())
}

/// A token cancelled when the process is asked to stop, after `said` is printed on standard
/// error (what stopping does to the work in progress).
pub fn cancel_on_stop(said: &'static str) -> tokio_util::sync::CancellationToken {
    let cancel = tokio_util::sync::CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        if stop_requested().await.is_ok() {
            eprintln!("{said}");
            stopper.cancel();
        }
    });
    cancel
}
