//! What a webhook delivery is about: the event kinds deft POSTs to webhooks, by stable wire
//! names (`run.ended`, …) that receivers branch on and webhooks subscribe to.

crate::named_enum! {
    /// The kind of an event a webhook receives (the payload's `type`, the `Deft-Event` header).
    WebhookEvent {
        /// A chat, designer or API agent run ended.
        RunEnded = "run.ended",
        /// A task run ended, whatever its task's notification settings.
        TaskRunEnded = "task_run.ended",
        /// An experience audit pass ended with suggestions waiting for a person.
        AuditSuggestion = "audit.suggestion",
        /// A remote device or a phone went offline.
        DeviceOffline = "device.offline",
        /// "Send a test": sent on request, never subscribed to.
        Ping = "ping",
    }
}

impl WebhookEvent {
    /// The kinds a webhook can subscribe to (every kind but [`WebhookEvent::Ping`], which a
    /// webhook receives when asked for a test).
    pub fn subscribable() -> impl Iterator<Item = WebhookEvent> {
        WebhookEvent::ALL
            .iter()
            .copied()
            .filter(|k| *k != WebhookEvent::Ping)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_keep_their_wire_names() {
        let names: Vec<&str> = WebhookEvent::subscribable()
            .map(WebhookEvent::as_str)
            .collect();
        assert_eq!(
            names,
            [
                "run.ended",
                "task_run.ended",
                "audit.suggestion",
                "device.offline"
            ]
        );
        assert_eq!(WebhookEvent::from_name("ping"), Some(WebhookEvent::Ping));
        assert_eq!(WebhookEvent::from_name("run.started"), None);
    }
}
