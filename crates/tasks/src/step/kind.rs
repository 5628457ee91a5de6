//! [`StepType`]: the step types by name, which of them the action library admits, and which
//! hold sub-steps.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// A step's `type`, without its parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepType {
    /// `open_app`.
    OpenApp,
    /// `stop_app`.
    StopApp,
    /// `screen_on`.
    ScreenOn,
    /// `screen_off`.
    ScreenOff,
    /// `key_event`.
    KeyEvent,
    /// `swipe`.
    Swipe,
    /// `swipe_until`.
    SwipeUntil,
    /// `click`.
    Click,
    /// `long_click`.
    LongClick,
    /// `wait_el`.
    WaitEl,
    /// `input_text`.
    InputText,
    /// `clipboard`.
    Clipboard,
    /// `wait`.
    Wait,
    /// `loop`.
    Loop,
    /// `group`.
    Group,
    /// `if_el`.
    IfEl,
    /// `for_each`.
    ForEach,
    /// `click_xy`.
    ClickXy,
    /// `gesture`.
    Gesture,
    /// `keep_screen`.
    KeepScreen,
    /// `notify`.
    Notify,
    /// `stop_self`.
    StopSelf,
    /// `mark_done`.
    MarkDone,
}

impl StepType {
    /// Every type, the action library's sixteen first, in the order docs/tasks.md lists them.
    pub const ALL: [StepType; 23] = [
        StepType::OpenApp,
        StepType::StopApp,
        StepType::ScreenOn,
        StepType::ScreenOff,
        StepType::KeyEvent,
        StepType::Swipe,
        StepType::SwipeUntil,
        StepType::Click,
        StepType::LongClick,
        StepType::WaitEl,
        StepType::InputText,
        StepType::Clipboard,
        StepType::Wait,
        StepType::Loop,
        StepType::Group,
        StepType::IfEl,
        StepType::ForEach,
        StepType::ClickXy,
        StepType::Gesture,
        StepType::KeepScreen,
        StepType::Notify,
        StepType::StopSelf,
        StepType::MarkDone,
    ];

    /// The wire name (`"open_app"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            StepType::OpenApp => "open_app",
            StepType::StopApp => "stop_app",
            StepType::ScreenOn => "screen_on",
            StepType::ScreenOff => "screen_off",
            StepType::KeyEvent => "key_event",
            StepType::Swipe => "swipe",
            StepType::SwipeUntil => "swipe_until",
            StepType::Click => "click",
            StepType::LongClick => "long_click",
            StepType::WaitEl => "wait_el",
            StepType::InputText => "input_text",
            StepType::Clipboard => "clipboard",
            StepType::Wait => "wait",
            StepType::Loop => "loop",
            StepType::Group => "group",
            StepType::IfEl => "if_el",
            StepType::ForEach => "for_each",
            StepType::ClickXy => "click_xy",
            StepType::Gesture => "gesture",
            StepType::KeepScreen => "keep_screen",
            StepType::Notify => "notify",
            StepType::StopSelf => "stop_self",
            StepType::MarkDone => "mark_done",
        }
    }

    /// Whether the action library admits it (seed 001 §5.2: the sixteen whitelisted types; no
    /// coordinates, no flow markers, no loops over data).
    pub fn is_library(self) -> bool {
        !matches!(
            self,
            StepType::ForEach
                | StepType::ClickXy
                | StepType::Gesture
                | StepType::KeepScreen
                | StepType::Notify
                | StepType::StopSelf
                | StepType::MarkDone
        )
    }

    /// The names of every step type, or of the library's (`library`), in [`StepType::ALL`]'s
    /// order.
    pub fn names(library: bool) -> Vec<&'static str> {
        StepType::ALL
            .into_iter()
            .filter(|t| !library || t.is_library())
            .map(StepType::as_str)
            .collect()
    }

    /// Whether it holds sub-steps (`loop`, `group`, `if_el`, `for_each`).
    pub fn is_container(self) -> bool {
        matches!(
            self,
            StepType::Loop | StepType::Group | StepType::IfEl | StepType::ForEach
        )
    }

    /// Whether it takes `retry`: the steps that act on the device or wait for it, and so can
    /// fail for a reason that passes. Containers (their sub-steps retry), `wait` (a pause
    /// cannot fail), `notify` and the enders cannot.
    pub fn takes_retry(self) -> bool {
        !self.is_container()
            && !matches!(
                self,
                StepType::Wait | StepType::Notify | StepType::StopSelf | StepType::MarkDone
            )
    }

    /// The types that take `retry`, in [`StepType::ALL`]'s order.
    pub fn retrying() -> impl Iterator<Item = StepType> {
        Self::ALL.into_iter().filter(|t| t.takes_retry())
    }

    /// The types the action library admits, in order.
    pub fn library() -> impl Iterator<Item = StepType> {
        Self::ALL.into_iter().filter(|t| t.is_library())
    }
}

impl fmt::Display for StepType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for StepType {
    type Err = ();

    /// The type of a wire name; exact (the validator suggests the closest for a typo).
    fn from_str(s: &str) -> Result<Self, ()> {
        Self::ALL.into_iter().find(|t| t.as_str() == s).ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sixteen_are_the_librarys() {
        for t in StepType::ALL {
            assert_eq!(t.as_str().parse::<StepType>(), Ok(t));
            assert_eq!(deft_protocol::wire_name(&t), t.as_str());
        }
        assert_eq!(StepType::library().count(), 16);
        assert!(StepType::ALL[..16].iter().all(|t| t.is_library()));
        assert!("Click".parse::<StepType>().is_err());
    }
}
