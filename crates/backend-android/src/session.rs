//! One phone's device session: the screens read from it, the ids its controls and windows keep
//! across reads, the listing the model saw last (for the `*` marks and `changes: true`) and
//! the effect check after an action.
//!
//! A phone's screen is read whole (`uiautomator dump`, 0.5–3 s on a real phone), so the session
//! reads it only when asked: a listing, a `find_controls` and each round of a
//! `wait_for_control` read it fresh; an action locates its control on the screen read last
//! (what the model acted on) and reads the screen once after it, which is both the action's
//! effect check and the screen the next action locates on.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use deft_protocol::observation::{Control, ListingOptions, WindowSummary, WindowType};
use deft_protocol::selector;

use crate::controls::{Listed, listed};
use crate::error::AndroidError;
use crate::focus::Focus;
use crate::ids::IdBook;
use crate::phone::Phone;
use crate::texts;

/// How long the effect check waits before reading the screen a second time when the first
/// read after an action shows no change (an app still drawing its answer).
pub const SETTLE_PAUSE: Duration = Duration::from_millis(300);

/// The first pause between two reads of a screen being waited on.
pub const POLL_FIRST: Duration = Duration::from_millis(200);

/// The longest pause between two reads of a screen being waited on.
pub const POLL_MOST: Duration = Duration::from_secs(1);

/// The pause after `pause` while waiting on a screen: half as long again, at most
/// [`POLL_MOST`] (a phone sends no change events over adb, so a wait reads the screen again and
/// again, often at first, then about once a second).
pub fn next_poll(pause: Duration) -> Duration {
    (pause + pause / 2).min(POLL_MOST)
}

/// The most points a swipe path takes.
pub const MAX_PATH_POINTS: usize = 50;

/// One read of the phone's screen.
#[derive(Debug, Clone)]
pub struct Seen {
    /// What the screen shows: the dialog that has the focus, else the foreground app's window.
    pub window: WindowSummary,
    /// The foreground app's window, then a dialog over it.
    pub windows: Vec<WindowSummary>,
    /// What has the focus.
    pub focus: Focus,
    /// The screen's controls with ids, in drawing order, and their nesting.
    pub listed: Listed,
    /// Changes whenever anything a model could see changes (an app, a control, a value, a
    /// state, a position).
    pub fingerprint: u64,
    /// When it was read.
    pub at: Instant,
    /// The display's rotation: 0 natural, 1 = 90°, 2 = 180°, 3 = 270°.
    pub rotation: u8,
}

impl Seen {
    /// The control with id `id`.
    pub fn control(&self, id: &str) -> Option<&Control> {
        self.listed.controls.iter().find(|c| c.id == id)
    }

    /// The foreground app's package (empty when nothing says).
    pub fn package(&self) -> &str {
        &self.window.app
    }
}

/// A listing for the model.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The screen as a window.
    pub window: WindowSummary,
    /// The controls (narrowed to a subtree when asked), new ones marked.
    pub controls: Vec<Control>,
    /// Their nesting depths.
    pub depths: Vec<u32>,
    /// The previous listing the model saw, for the change listing.
    pub previous: Option<Vec<Control>>,
}

/// What an action did, read from the screen after it.
#[derive(Debug, Clone)]
pub struct Effect {
    /// Whether anything the model could see changed.
    pub changed: bool,
    /// How long the check took.
    pub settle_ms: u64,
    /// The screen after the action.
    pub seen: Arc<Seen>,
}

/// Window ids by what the window shows, never reused in the session.
#[derive(Debug, Default)]
struct WindowBook {
    next: u64,
    ids: HashMap<String, String>,
}

impl WindowBook {
    fn id(&mut self, key: String) -> String {
        let next = &mut self.next;
        self.ids
            .entry(key)
            .or_insert_with(|| {
                *next += 1;
                next.to_string()
            })
            .clone()
    }
}

#[derive(Debug, Default)]
struct State {
    ids: IdBook,
    windows: WindowBook,
    last: Option<Arc<Seen>>,
    /// The whole-screen listing the model saw last.
    listed: Option<Vec<Control>>,
    /// Every control id given out, to tell a stale id from one never given.
    given: HashSet<String>,
}

/// A phone's session.
#[derive(Debug)]
pub struct PhoneSession {
    phone: Phone,
    state: tokio::sync::Mutex<State>,
    /// The screen's size in its natural orientation (`wm size`, asked once).
    size: tokio::sync::OnceCell<Option<(u32, u32)>>,
}

impl PhoneSession {
    /// A session on `phone`; nothing is read yet.
    pub fn new(phone: Phone) -> PhoneSession {
        PhoneSession {
            phone,
            state: tokio::sync::Mutex::new(State::default()),
            size: tokio::sync::OnceCell::new(),
        }
    }

    /// The phone.
    pub fn phone(&self) -> &Phone {
        &self.phone
    }

    /// The screen's size in pixels as it shows now: `wm size` (asked once per session), its
    /// sides swapped while the screen read last is turned a quarter (landscape).
    pub async fn screen_size(&self) -> Result<Option<(u32, u32)>, AndroidError> {
        let natural = *self
            .size
            .get_or_try_init(|| async { self.phone.screen_size().await })
            .await?;
        let turned = self
            .state
            .lock()
            .await
            .last
            .as_ref()
            .is_some_and(|s| s.rotation % 2 == 1);
        Ok(natural.map(|(w, h)| if turned { (h, w) } else { (w, h) }))
    }

    /// Reads the screen and the focus now.
    pub async fn look(&self) -> Result<Arc<Seen>, AndroidError> {
        let mut st = self.state.lock().await;
        let (screen, focus) = tokio::join!(self.phone.screen(), self.phone.focus());
        let (screen, focus) = (screen?, focus?);
        let st = &mut *st;
        let mut ids = st.ids.screen();
        let listed = listed(&screen, |n| ids.id(n));
        ids.keep();
        st.given
            .extend(listed.controls.iter().map(|c| c.id.clone()));
        let package = focus
            .package
            .clone()
            .or_else(|| screen.package().map(str::to_owned))
            .unwrap_or_default();
        let windows = windows_of(&focus, &package, &mut st.windows);
        let window = windows.last().cloned().unwrap_or_else(|| {
            WindowSummary::new("0", package.clone(), WindowType::Window, package.clone())
        });
        let seen = Arc::new(Seen {
            rotation: screen.rotation,
            fingerprint: fingerprint(&focus, &listed),
            window,
            windows,
            focus,
            listed,
            at: Instant::now(),
        });
        st.last = Some(seen.clone());
        Ok(seen)
    }

    /// The screen read last (read now when none was).
    pub async fn last(&self) -> Result<Arc<Seen>, AndroidError> {
        let last = self.state.lock().await.last.clone();
        match last {
            Some(seen) => Ok(seen),
            None => self.look().await,
        }
    }

    /// A listing for the model: the screen read now, controls new since the model's previous
    /// listing marked, narrowed to `opts.subtree` when given.
    pub async fn list(&self, opts: &ListingOptions) -> Result<Listing, AndroidError> {
        let seen = self.look().await?;
        let mut st = self.state.lock().await;
        let mut controls = seen.listed.controls.clone();
        if let Some(prev) = &st.listed {
            let before: HashSet<&str> = prev.iter().map(|c| c.id.as_str()).collect();
            controls = controls
                .into_iter()
                .map(|c| {
                    if before.contains(c.id.as_str()) {
                        c
                    } else {
                        c.new_since_last()
                    }
                })
                .collect();
        }
        let mut depths = seen.listed.depths.clone();
        let previous = match &opts.subtree {
            None => st.listed.replace(controls.clone()),
            Some(root) => {
                let Some(range) = selector::subtree_of(&controls, &depths, root) else {
                    return Err(self.missing(&st, &seen, root));
                };
                controls.truncate(range.end);
                controls.drain(..range.start);
                depths.truncate(range.end);
                depths.drain(..range.start);
                None
            }
        };
        Ok(Listing {
            window: seen.window.clone(),
            controls,
            depths,
            previous,
        })
    }

    /// Control `id` on the screen read last, with a warning when `name` is not its name.
    pub async fn control(
        &self,
        id: &str,
        name: Option<&str>,
    ) -> Result<(Arc<Seen>, Control, Option<String>), AndroidError> {
        let id = id.trim();
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
            return Err(AndroidError::Model(texts::bad_control_id(id)));
        }
        let seen = self.last().await?;
        let st = self.state.lock().await;
        let Some(c) = seen.control(id).cloned() else {
            return Err(self.missing(&st, &seen, id));
        };
        let warning = name
            .map(deft_protocol::observation::clean_name)
            .filter(|given| {
                !given.is_empty() && *given != deft_protocol::observation::clean_name(&c.name)
            })
            .map(|given| texts::control_name_warning(id, &given, &c.name, c.kind.as_str()));
        Ok((seen, c, warning))
    }

    /// Why `id` is not on `seen`: it left the screen, or it was never given out.
    fn missing(&self, st: &State, seen: &Seen, id: &str) -> AndroidError {
        if st.given.contains(id) {
            AndroidError::Model(texts::stale_control(id))
        } else {
            let ids: Vec<u64> = seen
                .listed
                .controls
                .iter()
                .filter_map(|c| c.id.parse().ok())
                .collect();
            let range = ids.iter().min().zip(ids.iter().max());
            AndroidError::Model(texts::unknown_control(id, range.map(|(a, b)| (*a, *b))))
        }
    }

    /// Reads the screen after an action and compares it with `before`: a screen that looks
    /// the same is read once more after [`SETTLE_PAUSE`], for apps that answer a moment later.
    pub async fn effect(&self, before: &Seen) -> Result<Effect, AndroidError> {
        let t0 = Instant::now();
        let mut seen = self.look().await?;
        if seen.fingerprint == before.fingerprint {
            tokio::time::sleep(SETTLE_PAUSE).await;
            seen = self.look().await?;
        }
        Ok(Effect {
            changed: seen.fingerprint != before.fingerprint,
            settle_ms: u64::try_from(t0.elapsed().as_millis()).unwrap_or(u64::MAX),
            seen,
        })
    }

    /// The windows the focus shows now (no screen read: cheap, and it works while the screen
    /// is off).
    pub async fn focus_windows(&self) -> Result<Vec<WindowSummary>, AndroidError> {
        let focus = self.phone.focus().await?;
        let mut st = self.state.lock().await;
        let package = focus.package.clone().unwrap_or_default();
        Ok(windows_of(&focus, &package, &mut st.windows))
    }

    /// The window with id `id` among the windows seen last (read now when none were).
    pub async fn window(
        &self,
        id: &str,
    ) -> Result<(Arc<Seen>, Option<WindowSummary>), AndroidError> {
        let seen = self.last().await?;
        let st = self.state.lock().await;
        let known = st
            .windows
            .ids
            .iter()
            .find(|(_, v)| v.as_str() == id.trim())
            .map(|(k, _)| k.clone());
        drop(st);
        let shown = seen.windows.iter().find(|w| w.id == id.trim()).cloned();
        Ok((
            seen,
            shown.or_else(|| known.map(|k| window_of_key(id.trim(), &k))),
        ))
    }
}

/// The windows a focus describes: the app's, then a dialog over it.
fn windows_of(focus: &Focus, package: &str, book: &mut WindowBook) -> Vec<WindowSummary> {
    let mut out = Vec::new();
    let activity = focus.activity.as_deref().unwrap_or_default();
    let key = format!("app\u{1f}{package}\u{1f}{activity}");
    out.push(window_of_key(&book.id(key.clone()), &key));
    if let Some(title) = focus.window.as_deref().filter(|t| !t.is_empty()) {
        let key = format!("dialog\u{1f}{package}\u{1f}{title}");
        out.push(window_of_key(&book.id(key.clone()), &key));
    }
    out
}

/// The summary of the window with id `id` known by `key` (`kind␟package␟activity-or-title`).
fn window_of_key(id: &str, key: &str) -> WindowSummary {
    let mut parts = key.splitn(3, '\u{1f}');
    let kind = parts.next().unwrap_or_default();
    let package = parts.next().unwrap_or_default();
    let rest = parts.next().unwrap_or_default();
    if kind == "dialog" {
        return WindowSummary::new(id, rest, WindowType::Dialog, package);
    }
    let name = short_activity(rest).unwrap_or(package);
    WindowSummary::new(id, name, WindowType::Window, package)
}

/// An activity's class name without its package and inner-class part
/// (`com.android.settings.Settings$NetworkDashboardActivity` → `Settings`).
fn short_activity(activity: &str) -> Option<&str> {
    let class = activity.rsplit('.').next()?;
    let class = class.split('$').next()?;
    (!class.is_empty()).then_some(class)
}

/// A number that changes when anything a model could see changes.
fn fingerprint(focus: &Focus, listed: &Listed) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    focus.package.hash(&mut h);
    focus.activity.hash(&mut h);
    focus.window.hash(&mut h);
    for c in &listed.controls {
        c.id.hash(&mut h);
        c.kind.as_str().hash(&mut h);
        c.name.hash(&mut h);
        c.value.hash(&mut h);
        for s in &c.states {
            s.as_str().hash(&mut h);
        }
        c.rect.hash(&mut h);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activities_are_named_by_their_class() {
        assert_eq!(
            short_activity("com.android.settings.Settings$NetworkDashboardActivity"),
            Some("Settings")
        );
        assert_eq!(
            short_activity("com.android.calculator2.Calculator"),
            Some("Calculator")
        );
        assert_eq!(short_activity(""), None);
    }

    #[test]
    fn window_ids_hold_for_what_the_window_shows_and_dialogs_come_over_their_app() {
        let mut book = WindowBook::default();
        let focus = Focus {
            package: Some("com.android.calculator2".into()),
            activity: Some("com.android.calculator2.Calculator".into()),
            window: None,
        };
        let first = windows_of(&focus, "com.android.calculator2", &mut book);
        assert_eq!(
            first,
            vec![WindowSummary::new(
                "1",
                "Calculator",
                WindowType::Window,
                "com.android.calculator2"
            )]
        );
        let dialog = Focus {
            window: Some("Saved".into()),
            ..focus.clone()
        };
        let second = windows_of(&dialog, "com.android.calculator2", &mut book);
        assert_eq!(second[0].id, "1");
        assert_eq!(
            second[1],
            WindowSummary::new("2", "Saved", WindowType::Dialog, "com.android.calculator2")
        );
        assert_eq!(
            windows_of(&focus, "com.android.calculator2", &mut book),
            first
        );
    }
}
