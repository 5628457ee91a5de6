//! The AT-SPI events the session watches: when the last one arrived (the quiet wait after an
//! action), a bounded log of which object sent what, so a walked window can be brought up to
//! date by re-reading only the objects that changed instead of walking it again, and a signal
//! on each arrival for the waits that look again only when something happened
//! (`wait_for_control`).

use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio::sync::watch;
use zbus::Connection;

use crate::a11y::ObjKey;

/// How many events the log keeps; older ones are dropped (a window walked before them is then
/// walked again).
pub const LOG_CAPACITY: usize = 4096;

/// What an event means for a walked tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A property of the sending object changed (state, name, text, value, bounds, focus):
    /// re-reading that object brings the tree up to date.
    Property,
    /// The sending object's children changed (one added or removed): reading its child list
    /// again, and walking the new children, brings the tree up to date.
    Children,
    /// Anything else (children added or removed, a table model or selection changed, a
    /// document loaded, an event this code does not know): the tree must be walked again.
    Structure,
}

/// Classifies an event by its interface (`org.a11y.atspi.Event.Object`) and member.
pub fn classify(interface: &str, member: &str) -> EventKind {
    let group = interface.rsplit('.').next().unwrap_or_default();
    match group {
        "Object" => match member {
            "StateChanged"
            | "PropertyChange"
            | "TextChanged"
            | "TextCaretMoved"
            | "TextAttributesChanged"
            | "TextSelectionChanged"
            | "BoundsChanged"
            | "AttributesChanged" => EventKind::Property,
            "ChildrenChanged" => EventKind::Children,
            _ => EventKind::Structure,
        },
        "Window" | "Focus" => EventKind::Property,
        _ => EventKind::Structure,
    }
}

/// One logged event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Its number: events are numbered from 1 in arrival order.
    pub seq: u64,
    /// The sending object.
    pub source: ObjKey,
    /// What it means for a walked tree.
    pub kind: EventKind,
}

/// The events seen on the accessibility bus.
#[derive(Debug)]
pub struct EventLog {
    epoch: Instant,
    /// Microseconds (since `epoch`) of the last event.
    last_us: AtomicU64,
    /// Number of events seen (the `seq` of the last one).
    count: AtomicU64,
    log: Mutex<VecDeque<Event>>,
    /// Microseconds (since `epoch`) of the last event per sending connection.
    last_by_bus: Mutex<HashMap<String, u64>>,
    /// The number of the last event, announced to every [`EventLog::subscribe`]r.
    arrived: watch::Sender<u64>,
}

/// The events after a given one, as far as the log still holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    /// Every event after it, in order.
    Events(Vec<Event>),
    /// Some were dropped from the log.
    Lost,
}

impl EventLog {
    /// An empty log.
    pub fn new() -> Self {
        EventLog {
            epoch: Instant::now(),
            last_us: AtomicU64::new(0),
            count: AtomicU64::new(0),
            log: Mutex::new(VecDeque::new()),
            last_by_bus: Mutex::new(HashMap::new()),
            arrived: watch::channel(0).0,
        }
    }

    /// Records an event.
    pub fn record(&self, source: ObjKey, kind: EventKind) {
        let us = u64::try_from(self.epoch.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.last_by_bus.lock().insert(source.bus.clone(), us);
        {
            let mut log = self.log.lock();
            let seq = self.count.load(Ordering::Relaxed) + 1;
            if log.len() >= LOG_CAPACITY {
                log.pop_front();
            }
            log.push_back(Event { seq, source, kind });
            self.count.store(seq, Ordering::Relaxed);
            self.arrived.send_replace(seq);
        }
        self.last_us.store(us, Ordering::Relaxed);
    }

    /// A receiver that wakes on every event recorded after it last looked (its `changed()`),
    /// so a waiter sleeps until something happens instead of looking on a timer.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.arrived.subscribe()
    }

    /// The number of the last event (0 before the first).
    pub fn generation(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    /// When the last event arrived (the log's creation before the first); the tests' view of
    /// the clock that [`EventLog::last_event_from`] keeps per application.
    #[cfg(test)]
    fn last_event(&self) -> Instant {
        self.epoch + Duration::from_micros(self.last_us.load(Ordering::Relaxed))
    }

    /// When the last event from connection `bus` (one application) arrived, if any did.
    pub fn last_event_from(&self, bus: &str) -> Option<Instant> {
        let us = *self.last_by_bus.lock().get(bus)?;
        Some(self.epoch + Duration::from_micros(us))
    }

    /// The events after event `seq`, or [`Since::Lost`] when the log no longer holds them all.
    pub fn since(&self, seq: u64) -> Since {
        let log = self.log.lock();
        match log.front() {
            Some(first) if first.seq > seq + 1 => Since::Lost,
            _ => Since::Events(log.iter().filter(|e| e.seq > seq).cloned().collect()),
        }
    }
}

impl Default for EventLog {
    fn default() -> Self {
        Self::new()
    }
}

/// Registers for object and window events (so toolkits emit them) and logs them as they come.
/// Returns false when events cannot be watched.
pub async fn watch(conn: &Connection, log: std::sync::Arc<EventLog>) -> bool {
    for event in ["object:", "window:"] {
        let _ = conn
            .call_method(
                Some("org.a11y.atspi.Registry"),
                "/org/a11y/atspi/registry",
                Some("org.a11y.atspi.Registry"),
                "RegisterEvent",
                &(event,),
            )
            .await;
    }
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .build();
    let Ok(mut stream) = zbus::MessageStream::for_match_rule(rule, conn, Some(1024)).await else {
        tracing::warn!("cannot watch AT-SPI events; every look at a window walks it again");
        return false;
    };
    tokio::spawn(async move {
        while let Some(msg) = stream.next().await {
            let Ok(msg) = msg else { continue };
            let header = msg.header();
            let Some(interface) = header
                .interface()
                .filter(|i| i.as_str().starts_with("org.a11y.atspi.Event"))
            else {
                continue;
            };
            let member = header.member().map(|m| m.as_str()).unwrap_or_default();
            let source = ObjKey::new(
                header.sender().map(|s| s.as_str()).unwrap_or_default(),
                header.path().map(|p| p.as_str()).unwrap_or_default(),
            );
            log.record(source, classify(interface.as_str(), member));
        }
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(path: &str) -> ObjKey {
        ObjKey::new(":1.3", path)
    }

    #[test]
    fn property_and_children_events_patch_and_everything_else_rewalks() {
        let obj = "org.a11y.atspi.Event.Object";
        assert_eq!(classify(obj, "TextChanged"), EventKind::Property);
        assert_eq!(classify(obj, "StateChanged"), EventKind::Property);
        assert_eq!(
            classify("org.a11y.atspi.Event.Window", "Activate"),
            EventKind::Property
        );
        assert_eq!(classify(obj, "ChildrenChanged"), EventKind::Children);
        assert_eq!(classify(obj, "SelectionChanged"), EventKind::Structure);
        assert_eq!(
            classify("org.a11y.atspi.Event.Document", "LoadComplete"),
            EventKind::Structure
        );
    }

    #[test]
    fn the_log_answers_what_came_after_and_knows_when_it_forgot() {
        let log = EventLog::new();
        assert_eq!(log.generation(), 0);
        assert_eq!(log.since(0), Since::Events(vec![]));
        log.record(key("/a"), EventKind::Property);
        log.record(key("/b"), EventKind::Structure);
        assert_eq!(log.generation(), 2);
        assert_eq!(
            log.since(1),
            Since::Events(vec![Event {
                seq: 2,
                source: key("/b"),
                kind: EventKind::Structure
            }])
        );
        for _ in 0..LOG_CAPACITY {
            log.record(key("/c"), EventKind::Property);
        }
        assert_eq!(log.since(1), Since::Lost);
        match log.since(3) {
            Since::Events(e) => assert_eq!(e.len(), LOG_CAPACITY - 1),
            Since::Lost => panic!("event 4 onwards are still held"),
        }
        assert!(log.last_event() > log.epoch);
        let mut arrivals = log.subscribe();
        assert!(!arrivals.has_changed().unwrap());
        log.record(key("/d"), EventKind::Property);
        assert!(arrivals.has_changed().unwrap());
        assert_eq!(*arrivals.borrow_and_update(), log.generation());
        assert!(log.last_event_from(":1.3").is_some());
        assert!(log.last_event_from(":1.9").is_none());
    }
}
