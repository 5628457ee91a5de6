//! The foreground app and window of a phone, read from `dumpsys window` (Android 10 and later
//! print `dumpsys window displays`; older ones `dumpsys window windows`; the lines are the same).
//!
//! `mCurrentFocus=Window{48b4735 u0 com.pkg/com.pkg.MainActivity}` names the focused window; a
//! dialog's has no component (`Window{1ca9ce3 u0 More options}`), and during a transition or on
//! the keyguard it is `null`. `mFocusedApp=ActivityRecord{12376650 u0 com.pkg/.MainActivity t349}`
//! names the app's activity even while a dialog has the focus.

/// What has the focus on a phone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Focus {
    /// The foreground app's package.
    pub package: Option<String>,
    /// Its activity, full class name.
    pub activity: Option<String>,
    /// The focused window's title when it is no activity (a dialog, `NotificationShade`).
    pub window: Option<String>,
}

/// Reads `dumpsys window` output; the first display's focus wins.
pub fn parse_focus(dumpsys: &str) -> Focus {
    let mut focus = Focus::default();
    for line in dumpsys.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("mCurrentFocus=") {
            if focus.package.is_none() && focus.window.is_none() {
                match component(rest) {
                    Some((package, activity)) => {
                        focus.package = Some(package);
                        focus.activity = Some(activity);
                    }
                    None => focus.window = window_title(rest),
                }
            }
        } else if let Some(rest) = line.strip_prefix("mFocusedApp=")
            && focus.package.is_none()
            && let Some((package, activity)) = component(rest)
        {
            focus.package = Some(package);
            focus.activity = Some(activity);
        }
    }
    focus
}

/// The `pkg/Activity` inside a `Window{…}` or `ActivityRecord{…}`, the activity made full.
fn component(record: &str) -> Option<(String, String)> {
    record
        .split(|c: char| c.is_whitespace() || c == '{' || c == '}')
        .find_map(|word| {
            let (package, activity) = word.split_once('/')?;
            let valid = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$'))
            };
            (valid(package) && valid(activity) && package.contains('.')).then(|| {
                let activity = match activity.strip_prefix('.') {
                    Some(short) => format!("{package}.{short}"),
                    None => activity.to_owned(),
                };
                (package.to_owned(), activity)
            })
        })
}

/// The title of a focused window that is no activity: what follows the hash and the user.
fn window_title(record: &str) -> Option<String> {
    let inner = record.strip_prefix("Window{")?.strip_suffix('}')?;
    let mut words = inner.split_whitespace().skip(1).peekable();
    if words
        .peek()
        .is_some_and(|w| w.starts_with('u') && w[1..].chars().all(|c| c.is_ascii_digit()))
    {
        words.next();
    }
    let title = words.collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_focused_activity_is_read_in_every_dialect() {
        let now = "  mCurrentFocus=Window{48b4735 u0 com.android.settings/com.android.settings.Settings}\n  mFocusedApp=ActivityRecord{12376650 u0 com.android.settings/.Settings t349}";
        let f = parse_focus(now);
        assert_eq!(f.package.as_deref(), Some("com.android.settings"));
        assert_eq!(f.activity.as_deref(), Some("com.android.settings.Settings"));
        let old = "mFocusedApp=AppWindowToken{38600b56 token=Token{9ea1171 ActivityRecord{2c7c4318 u0 com.pkg/.Act t181}}}";
        assert_eq!(parse_focus(old).activity.as_deref(), Some("com.pkg.Act"));
        let very_old = "mCurrentFocus=Window{41b37570 com.pkg/com.pkg.Act paused=false}";
        assert_eq!(parse_focus(very_old).package.as_deref(), Some("com.pkg"));
    }

    #[test]
    fn a_dialog_keeps_the_app_and_names_its_window() {
        let said = "  mCurrentFocus=Window{1ca9ce3 u0 More options}\n  mFocusedApp=ActivityRecord{1 u0 com.pkg/.Main t3}";
        let f = parse_focus(said);
        assert_eq!(f.window.as_deref(), Some("More options"));
        assert_eq!(f.package.as_deref(), Some("com.pkg"));
        let locked = "  mCurrentFocus=null\n  mFocusedApp=null";
        assert_eq!(parse_focus(locked), Focus::default());
    }
}
