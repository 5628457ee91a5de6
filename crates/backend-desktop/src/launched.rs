//! Which window belongs to a `launch_app`, and by which rule (the answer's `found_by`). Before
//! anything starts: a window of the application that is already open (`already_open`), as a
//! phone brings a running app to the front. After a start, a window that was not open before
//! and is, in this order: the launched process's (`process`); a process it started
//! (`descendant`: its children and theirs, or any process that inherited the launch's mark in
//! its environment — a launcher script, Flatpak, snap or AppImage that starts the app without
//! `exec`, even one that forks and exits); a process of the group the launch leads
//! (`process_group`); one whose `WM_CLASS` is the entry's `StartupWMClass` (`wm_class`); one
//! with the application's root name (`root`). A launched program that exits successfully may
//! have handed the request to the application's running instance (single-instance programs such
//! as Mousepad do): then, once nothing it started still runs, a window of the application whose
//! title changed since the launch — it shows the new tab or document — is the one (`new_tab`);
//! when none changed by the end of [`HANDOFF_GRACE`], the application's newest window
//! (`running_instance`: the instance only brought itself to the front).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::{Duration, Instant};

use crate::a11y::ObjKey;
use crate::launch::{self, LaunchPlan, Launched};
use crate::proc;
use crate::session::{DesktopSession, WindowEntry};
use crate::texts;

/// How often the desktop is looked at while a launch's window is awaited.
const POLL: Duration = Duration::from_millis(100);

/// After the launched process exits successfully, how long its window is still looked for
/// (single-instance programs hand the request to a running instance and exit).
pub const HANDOFF_GRACE: Duration = Duration::from_secs(3);

/// The rule that recognised a launch's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundBy {
    /// The application had the window open already; nothing was started.
    AlreadyOpen,
    /// The launched process's own window.
    Process,
    /// A window of a process the launched one started.
    Descendant,
    /// A window of a process in the process group the launch leads.
    ProcessGroup,
    /// A new window whose `WM_CLASS` is the entry's `StartupWMClass`.
    WmClass,
    /// A new window with the application's root name.
    Root,
    /// The application's running instance showed the request in a window it had.
    NewTab,
    /// The application's running instance took the request and showed nothing new: its
    /// newest window.
    RunningInstance,
}

impl FoundBy {
    /// The answer's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            FoundBy::AlreadyOpen => "already_open",
            FoundBy::Process => "process",
            FoundBy::Descendant => "descendant",
            FoundBy::ProcessGroup => "process_group",
            FoundBy::WmClass => "wm_class",
            FoundBy::Root => "root",
            FoundBy::NewTab => "new_tab",
            FoundBy::RunningInstance => "running_instance",
        }
    }
}

/// What names an application's windows: its root names (the name as given and the resolved
/// executable's) and the entry's `StartupWMClass`.
#[derive(Debug, Clone, Default)]
pub struct AppNames {
    roots: BTreeSet<String>,
    wm_class: Option<String>,
}

impl AppNames {
    /// The names of `app` (as `launch_app` was given it), resolved to `plan` when it could be.
    pub fn of(app: &str, plan: Option<&LaunchPlan>) -> Self {
        let mut roots = BTreeSet::from([app.trim().to_owned()]);
        if let Some(p) = plan {
            roots.insert(p.root.clone());
        }
        AppNames {
            roots,
            wm_class: plan.and_then(|p| p.wm_class.clone()),
        }
    }

    fn has_root(&self, w: &WindowEntry) -> bool {
        self.roots.contains(&w.app)
    }

    fn has_class(&self, w: &WindowEntry, classes: &HashMap<u64, String>) -> bool {
        let class = classes.get(&w.id);
        self.wm_class
            .as_deref()
            .zip(class)
            .is_some_and(|(want, got)| want.eq_ignore_ascii_case(got))
    }

    /// Whether `w` is one of the application's windows.
    fn owns(&self, w: &WindowEntry, classes: &HashMap<u64, String>) -> bool {
        self.has_root(w) || self.has_class(w, classes)
    }
}

/// The application's window that is open now: the newest, or the newest whose title contains
/// `title` (case ignored). `Ok(None)` when the application has no window; the error text when
/// it has windows but none with that title.
pub async fn already_open(
    session: &DesktopSession,
    app: &str,
    names: &AppNames,
    title: Option<&str>,
) -> Result<Option<WindowEntry>, String> {
    let windows = session.open_windows().await.map_err(|e| e.to_string())?;
    let classes = session.window_classes(&windows).await;
    let mine: Vec<&WindowEntry> = windows.iter().filter(|w| names.owns(w, &classes)).collect();
    let Some(title) = title.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(mine.last().map(|w| (*w).clone()));
    };
    let want = title.to_lowercase();
    match mine
        .iter()
        .rev()
        .find(|w| w.name.to_lowercase().contains(&want))
    {
        Some(w) => Ok(Some((*w).clone())),
        None if mine.is_empty() => Ok(None),
        None => {
            let titles: Vec<String> = mine.iter().map(|w| w.name.clone()).collect();
            Err(texts::no_window_titled(app, title, &titles))
        }
    }
}

/// A test of a window that was not open before the launch.
type Rule<'r> = dyn Fn(&WindowEntry) -> bool + 'r;

/// What a launch is watched with: the windows open before it, and what the launched process
/// started so far.
pub struct Watch<'a> {
    launched: &'a Launched,
    names: &'a AppNames,
    before: HashMap<ObjKey, String>,
    family: HashSet<u32>,
}

impl<'a> Watch<'a> {
    /// Watches `launched`, started for the application `names` names, after `before` were open.
    pub fn new(launched: &'a Launched, names: &'a AppNames, before: &[WindowEntry]) -> Self {
        Watch {
            launched,
            names,
            before: before
                .iter()
                .map(|w| (w.key.clone(), w.name.clone()))
                .collect(),
            family: HashSet::from([launched.pid]),
        }
    }

    /// The launch's window among `windows` (open now) and the rule that found it; with
    /// `handed_off` (the launched program exited successfully) also a window of the application
    /// whose title changed.
    fn find(
        &mut self,
        windows: &[WindowEntry],
        classes: &HashMap<u64, String>,
        handed_off: bool,
    ) -> Option<(WindowEntry, FoundBy)> {
        self.family.extend(proc::descendants(self.launched.pid));
        let fresh: Vec<&WindowEntry> = windows
            .iter()
            .filter(|w| !self.before.contains_key(&w.key))
            .collect();
        let l = self.launched;
        let rules: [(FoundBy, &Rule<'_>); 5] = [
            (FoundBy::Process, &|w| w.pid == Some(l.pid)),
            (FoundBy::Descendant, &|w| {
                w.pid.is_some_and(|p| {
                    self.family.contains(&p) || proc::has_env(p, launch::LAUNCH_MARK, &l.mark)
                })
            }),
            (FoundBy::ProcessGroup, &|w| {
                l.own_group
                    && w.pid
                        .and_then(|p| i32::try_from(p).ok())
                        .and_then(proc::process_pgid)
                        == i32::try_from(l.pid).ok()
            }),
            (FoundBy::WmClass, &|w| self.names.has_class(w, classes)),
            (FoundBy::Root, &|w| self.names.has_root(w)),
        ];
        for (rule, holds) in rules {
            if let Some(w) = fresh.iter().find(|w| holds(w)) {
                return Some(((*w).clone(), rule));
            }
        }
        if !handed_off || self.still_running() {
            return None;
        }
        windows
            .iter()
            .rev()
            .filter(|w| self.names.owns(w, classes))
            .find(|w| self.before.get(&w.key).is_some_and(|t| *t != w.name))
            .map(|w| (w.clone(), FoundBy::NewTab))
    }

    /// After a hand-off showed nothing new: the application's newest window, if it has one.
    fn running_instance(
        &self,
        windows: &[WindowEntry],
        classes: &HashMap<u64, String>,
    ) -> Option<(WindowEntry, FoundBy)> {
        windows
            .iter()
            .rev()
            .find(|w| self.names.owns(w, classes))
            .map(|w| (w.clone(), FoundBy::RunningInstance))
    }
}

impl Watch<'_> {
    /// Whether something the launch started still runs: a process it started, or one that
    /// carries its mark (a launcher that exited early left the application starting).
    fn still_running(&self) -> bool {
        let l = self.launched;
        self.family
            .iter()
            .any(|&p| p != l.pid && i32::try_from(p).is_ok_and(proc::pid_alive))
            || proc::marked(launch::LAUNCH_MARK, &l.mark)
                .into_iter()
                .any(|p| p != l.pid)
    }
}

/// Waits up to `wait` for the window of `launched` (started by `plan` for `app`), looking every
/// [`POLL`]: the window and the rule that found it, or the error text — the program exited
/// without a window (a failure at once; a success after [`HANDOFF_GRACE`]), or it still runs
/// without one.
pub async fn wait_for_window(
    session: &DesktopSession,
    app: &str,
    plan: &LaunchPlan,
    launched: &Launched,
    mut watch: Watch<'_>,
    wait: Duration,
) -> Result<(WindowEntry, FoundBy), String> {
    let program = plan.program.display().to_string();
    let deadline = Instant::now() + wait;
    let mut handoff_until = None;
    loop {
        let exited = launched.exited();
        let windows = session.open_windows().await.map_err(|e| e.to_string())?;
        let classes = session.window_classes(&windows).await;
        let handed_off = exited.is_some_and(|s| s.success());
        if let Some(found) = watch.find(&windows, &classes, handed_off) {
            return Ok(found);
        }
        let now = Instant::now();
        // A launcher that exited while what it started still runs: the application is still
        // starting, so the whole wait applies.
        let exited = exited.filter(|s| !s.success() || !watch.still_running());
        if let Some(status) = exited {
            // A failure ends the wait at once; a success may have handed the request to a
            // running instance, whose window gets a short grace.
            let until = *handoff_until.get_or_insert_with(|| (now + HANDOFF_GRACE).min(deadline));
            if status.success()
                && now >= until
                && let Some(found) = watch.running_instance(&windows, &classes)
            {
                return Ok(found);
            }
            if !status.success() || now >= until {
                return Err(texts::launch_exited(
                    app,
                    &program,
                    &launch::describe_exit(status),
                ));
            }
        } else if now >= deadline {
            return Err(texts::launch_no_window(
                app,
                &program,
                launched.pid,
                wait.as_secs(),
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}
