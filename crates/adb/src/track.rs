//! [`DeviceTracker`]: the device list as it changes, without its reader polling
//! (`host:track-devices-l`: the server sends the whole list at once and again on each change).
//! A task reads it; when the server stops, the tracker says so and reconnects with a bounded
//! backoff, starting the server at most once per outage (as every call of the client does);
//! dropping the tracker ends it.
//!
//! adb 29 (Debian's) does not announce every change: a phone turning `unauthorized` or
//! `authorizing` after it appeared `offline`, or a network phone whose connection broke turning
//! `offline`, changes the list silently. So the task also reads the list itself
//! (`host:devices-l`) soon after each change the server announces (after 100 ms, then waiting
//! twice as long each time up to 5 s, then every 5 s); a list equal to the last one is not sent
//! again.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::client::AdbClient;
use crate::devices::{Device, parse_devices_l};
use crate::error::AdbError;
use crate::socket::HostSocket;
use crate::texts;

/// The waits before reconnecting to a server that stopped.
const RECONNECT: Backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(2));
/// The waits before reading the list again after the server's last announcement.
const REREAD: Backoff = Backoff::new(Duration::from_millis(100), Duration::from_secs(5));
/// Events a slow reader may leave unread before the task waits for it.
const QUEUE: usize = 16;

/// What the tracker saw.
#[derive(Debug)]
pub enum TrackEvent {
    /// The whole device list: at once after (re)connecting, then after each change.
    Devices(Vec<Device>),
    /// The device list cannot be followed now: [`AdbError::ServerStopped`] when the server's
    /// connection closed, or why reaching it failed (not installed, not started, …). The
    /// tracker keeps trying and sends [`TrackEvent::Devices`] once the server is back.
    Outage(AdbError),
}

/// The device list of an adb server, as it changes; dropping it stops its task.
#[derive(Debug)]
pub struct DeviceTracker {
    events: mpsc::Receiver<TrackEvent>,
    task: JoinHandle<()>,
}

impl DeviceTracker {
    /// The next event (`None` only if the task ended, which it does not while the tracker
    /// lives).
    pub async fn next(&mut self) -> Option<TrackEvent> {
        self.events.recv().await
    }
}

impl Drop for DeviceTracker {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl AdbClient {
    /// Follows the server's device list: phones appearing, leaving and changing state, and
    /// the server's outages. Needs a tokio runtime.
    pub fn track_devices(&self) -> DeviceTracker {
        let (events, receiver) = mpsc::channel(QUEUE);
        let tracking = Tracking {
            client: self.clone(),
            events,
            last: None,
        };
        DeviceTracker {
            events: receiver,
            task: tokio::spawn(tracking.run()),
        }
    }

    /// A connection following the device list (its `OKAY` read).
    async fn open_tracking(&self, may_start: &mut bool) -> Result<HostSocket, AdbError> {
        self.limited(|| texts::TRACKING.into(), async {
            let mut socket = self.open_with(may_start).await?;
            socket.request("host:track-devices-l", None).await?;
            Ok(socket)
        })
        .await
    }
}

/// Waits doubling from `first` up to `last`.
#[derive(Debug, Clone, Copy)]
struct Backoff {
    first: Duration,
    last: Duration,
    tries: u32,
}

impl Backoff {
    const fn new(first: Duration, last: Duration) -> Backoff {
        Backoff {
            first,
            last,
            tries: 0,
        }
    }

    /// The wait before the next try.
    fn next_wait(&mut self) -> Duration {
        let wait = self.first.saturating_mul(1 << self.tries.min(16));
        self.tries = self.tries.saturating_add(1);
        wait.min(self.last)
    }

    fn reset(&mut self) {
        self.tries = 0;
    }
}

/// The tracking task's state.
struct Tracking {
    client: AdbClient,
    events: mpsc::Sender<TrackEvent>,
    /// The last list sent (`None`: none since the last outage).
    last: Option<Vec<Device>>,
}

/// How following one connection ended.
enum Ended {
    /// Nobody listens any more.
    Unheard,
    /// The connection ended (`delivered`: after at least one list).
    Lost { error: AdbError, delivered: bool },
}

/// What woke the follower.
enum Woken {
    /// The server announced a list (or its connection ended).
    Announced(Result<String, AdbError>),
    /// Time to read the list again.
    Reread,
}

/// The next announcement on `socket`, which it hands back (so that a pending read survives the
/// follower's other waits).
type Announcement = Pin<Box<dyn Future<Output = (HostSocket, Result<String, AdbError>)> + Send>>;

fn announcement(mut socket: HostSocket) -> Announcement {
    Box::pin(async move {
        let read = socket.read_string().await;
        (socket, read)
    })
}

impl Tracking {
    /// Connects, follows, reports outages and reconnects until nobody listens.
    async fn run(mut self) {
        // an outage is reported once; the server is started at most once per outage
        let (mut reported, mut may_start, mut backoff) = (false, true, RECONNECT);
        loop {
            let error = match self.client.open_tracking(&mut may_start).await {
                Ok(socket) => match self.follow(socket).await {
                    Ended::Unheard => return,
                    Ended::Lost { error, delivered } => {
                        if delivered {
                            backoff.reset();
                            (reported, may_start) = (false, true);
                        }
                        error
                    }
                },
                Err(error) => error,
            };
            self.last = None;
            let starting = matches!(
                error,
                AdbError::NotInstalled(_) | AdbError::StartFailed { .. }
            );
            if !reported || starting {
                reported = true;
                if self.events.send(TrackEvent::Outage(error)).await.is_err() {
                    return;
                }
            }
            tokio::time::sleep(backoff.next_wait()).await;
        }
    }

    /// Sends each list the server announces, and the lists read again in between, until the
    /// connection ends or nobody listens.
    async fn follow(&mut self, socket: HostSocket) -> Ended {
        let port = socket.port();
        let mut pending = announcement(socket);
        let mut reread = REREAD;
        loop {
            let wait = reread.next_wait();
            let woken = tokio::select! {
                (socket, read) = &mut pending => {
                    pending = announcement(socket);
                    Woken::Announced(read)
                }
                () = tokio::time::sleep(wait) => Woken::Reread,
            };
            let devices = match woken {
                Woken::Announced(Ok(text)) => {
                    reread.reset();
                    parse_devices_l(&text)
                }
                Woken::Announced(Err(error)) => {
                    let error = match error {
                        AdbError::Io { .. } => AdbError::ServerStopped(port),
                        error => error,
                    };
                    let delivered = self.last.is_some();
                    return Ended::Lost { error, delivered };
                }
                // a failed read: the announcements' connection says why soon
                Woken::Reread => match self.client.devices_if_running().await {
                    Ok(devices) => devices,
                    Err(_) => continue,
                },
            };
            if self.last.as_ref() != Some(&devices) {
                self.last = Some(devices.clone());
                if self
                    .events
                    .send(TrackEvent::Devices(devices))
                    .await
                    .is_err()
                {
                    return Ended::Unheard;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoffs_double_up_to_their_bounds() {
        let mut backoff = RECONNECT;
        let waits: Vec<u128> = (0..8).map(|_| backoff.next_wait().as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 2000, 2000, 2000]);
        for _ in 0..100 {
            backoff.next_wait();
        }
        assert_eq!(backoff.next_wait(), Duration::from_secs(2));
        backoff.reset();
        assert_eq!(backoff.next_wait(), Duration::from_millis(100));
        let mut reread = REREAD;
        let waits: Vec<u128> = (0..8).map(|_| reread.next_wait().as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
    }
}
