//! Wake-ups between the servers of a fleet: PostgreSQL's `LISTEN` / `NOTIFY`. A write others
//! wait for (a run's events, a queued or ended fleet job) sends a notification on one of the
//! [`Channel`]s, inside its transaction, so it is delivered when — and only if — the write
//! commits. Notifications only wake: the store stays the truth, and a listener that missed
//! one (a dropped connection) reads the store again. On SQLite there is one server and nothing
//! to wake: [`Store::listen`] answers `None`.

use sqlx::AnyConnection;
use sqlx::postgres::PgListener;

use crate::error::{Result, StoreError, db};
use crate::{Backend, Store};

/// What a notification is about; its payload names the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    /// A run's events were stored (an agent run's or a task run's); the payload is the run id.
    RunEvents,
    /// A fleet job was queued; the payload is its device.
    JobQueued,
    /// A fleet job ended; the payload is its id.
    JobEnded,
}

impl Channel {
    /// Every channel.
    pub const ALL: [Channel; 3] = [Channel::RunEvents, Channel::JobQueued, Channel::JobEnded];

    /// Its PostgreSQL name.
    pub fn name(self) -> &'static str {
        match self {
            Channel::RunEvents => "deft_run_events",
            Channel::JobQueued => "deft_job_queued",
            Channel::JobEnded => "deft_job_ended",
        }
    }

    fn from_name(name: &str) -> Option<Channel> {
        Channel::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// A connection listening on every [`Channel`].
pub struct Listener {
    inner: PgListener,
}

impl Listener {
    /// The next notification: its channel and payload. After a lost connection the listener
    /// reconnects by itself and answers again (notifications sent meanwhile are lost: read the
    /// store).
    pub async fn recv(&mut self) -> Result<(Channel, String)> {
        loop {
            let n = self
                .inner
                .recv()
                .await
                .map_err(db("waiting for a notification"))?;
            if let Some(channel) = Channel::from_name(n.channel()) {
                return Ok((channel, n.payload().to_owned()));
            }
        }
    }
}

impl Store {
    /// A connection listening on every channel; `None` on SQLite.
    pub async fn listen(&self) -> Result<Option<Listener>> {
        let Some(url) = self.url.as_deref() else {
            return Ok(None);
        };
        let mut inner = PgListener::connect(url)
            .await
            .map_err(|e| StoreError::Unavailable {
                target: crate::connect::redact(url),
                cause: format!("cannot open a listening connection: {e}"),
            })?;
        let names: Vec<&str> = Channel::ALL.iter().map(|c| c.name()).collect();
        inner
            .listen_all(names)
            .await
            .map_err(db("listening for notifications"))?;
        Ok(Some(Listener { inner }))
    }
}

/// Sends `payload` on `channel` from inside the caller's transaction (delivered at commit);
/// nothing on SQLite.
pub(crate) async fn notify(
    conn: &mut AnyConnection,
    backend: Backend,
    channel: Channel,
    payload: &str,
) -> Result<()> {
    if backend == Backend::Sqlite {
        return Ok(());
    }
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(channel.name())
        .bind(payload)
        .execute(conn)
        .await
        .map_err(db("sending a notification"))?;
    Ok(())
}
