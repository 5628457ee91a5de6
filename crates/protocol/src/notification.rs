//! What a console notification is about and how loud it is: the kinds and levels the store keeps
//! by their wire names (stable: the console and webhooks read them).

crate::named_enum! {
    /// What happened.
    NotificationKind {
        /// A task run failed.
        TaskRunFailed = "task_run_failed",
        /// A task run hit its time limit.
        TaskRunTimedOut = "task_run_timed_out",
        /// A task run was cut off (its server went silent or restarted).
        TaskRunInterrupted = "task_run_interrupted",
        /// A task run succeeded (only when its task asks for it).
        TaskRunSucceeded = "task_run_succeeded",
        /// A run waits for a person to approve an action.
        ApprovalWaiting = "approval_waiting",
        /// The memory audit has suggestions to review.
        AuditSuggestion = "audit_suggestion",
        /// A remote device went offline.
        DeviceOffline = "device_offline",
        /// A task's `notify` step (only when its task asks for it).
        NotifyStep = "notify_step",
        /// A webhook's delivery failed after its last attempt.
        WebhookFailing = "webhook_failing",
    }
}

crate::named_enum! {
    /// How loud a notification is.
    NotificationLevel {
        /// For information.
        Info = "info",
        /// Worth a look.
        Warning = "warning",
        /// Something failed.
        Error = "error",
    }
}
