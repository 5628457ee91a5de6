//! What a step did or why it could not: a leaf step's [`Done`] (the control its selector
//! located, its message, its screenshots) or its [`StepError`], the text a person reads in the
//! step result. The driver, the step types' actions, the time limits and the player all speak
//! in them.

/// A control a selector located, and whether the fuzzy retry had to find it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The control as the step result reports it.
    pub control: deft_protocol::task_run::MatchedControl,
    /// The selector as written, when it matched nothing and the fuzzy retry found this one.
    pub healed_from: Option<String>,
}

/// Why a step could not do what it says: the text a person reads in the step result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepError(pub String);

impl std::fmt::Display for StepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a leaf step did, for its result.
#[derive(Debug, Clone, Default)]
pub(crate) struct Done {
    /// The control its selector picked.
    pub(crate) located: Option<Located>,
    /// What it has to say.
    pub(crate) message: Option<String>,
    /// Screenshots kept with its result.
    pub(crate) image_ids: Vec<String>,
}

impl Done {
    /// A step that did its work and has `text` to say.
    pub(crate) fn message(text: String) -> Self {
        Done {
            message: Some(text),
            ..Done::default()
        }
    }

    /// A step that acted on the control `l`.
    pub(crate) fn located(l: Located) -> Self {
        Done {
            located: Some(l),
            ..Done::default()
        }
    }
}
