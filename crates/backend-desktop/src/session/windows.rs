//! The session's windows: enumerating the desktop's top-level windows (ids, root names), checking
//! a window id, selecting (raising and focusing) a window, and where a window is on screen.

use std::collections::HashSet;

use atspi::State;
use deft_protocol::observation::{WindowSummary, WindowType};
use futures::future::join_all;
use zbus::Connection;

use super::{Connected, DesktopSession, WindowEntry};
use crate::a11y::{self, ObjKey};
use crate::describe;
use crate::error::{ToolError, ToolResult};
use crate::texts;
use crate::x11::XError;

/// Roles of top-level windows (AtspiRole): FRAME, WINDOW, DIALOG, ALERT, FILE_CHOOSER.
const WINDOW_ROLES: &[u32] = &[23, 69, 16, 2, 22];
const DIALOG_ROLES: &[u32] = &[16, 2, 22];

impl DesktopSession {
    /// Enumerates the desktop's top-level windows (or returns the previous list when `refresh`
    /// is false), assigning ids.
    pub async fn list_windows(
        &self,
        remove_empty: bool,
        refresh: bool,
    ) -> ToolResult<Vec<WindowSummary>> {
        if !refresh {
            let maps = self.maps.lock().await;
            if !maps.listed_windows.is_empty() {
                return Ok(maps
                    .listed_windows
                    .iter()
                    .filter_map(|id| maps.window_info.get(id))
                    .filter(|w| !remove_empty || !w.name.is_empty())
                    .map(WindowEntry::summary)
                    .collect());
            }
        }
        let c = self.connected().await?;
        let mut found = enumerate_windows(&c.a11y).await?;
        module_roots(&c, &mut found).await;
        let mut maps = self.maps.lock().await;
        let present: HashSet<ObjKey> = found.iter().map(|f| f.key.clone()).collect();
        for w in maps.window_info.values_mut() {
            w.open = present.contains(&w.key);
        }
        let mut listed = Vec::new();
        for f in found {
            let id = match maps.windows.get(&f.key) {
                Some(id) => *id,
                None => {
                    maps.next_window += 1;
                    let id = maps.next_window;
                    maps.windows.insert(f.key.clone(), id);
                    id
                }
            };
            let entry = maps.window_info.entry(id).or_insert_with(|| WindowEntry {
                id,
                key: f.key.clone(),
                name: String::new(),
                kind: WindowType::Window,
                app: String::new(),
                pid: None,
                open: true,
                previous: None,
                last_listing: None,
                rect: None,
            });
            entry.name = f.name;
            entry.kind = f.kind;
            entry.app = f.app;
            entry.pid = f.pid;
            entry.open = true;
            entry.rect = f.rect;
            listed.push(id);
        }
        maps.listed_windows = listed.clone();
        Ok(listed
            .iter()
            .filter_map(|id| maps.window_info.get(id))
            .filter(|w| !remove_empty || !w.name.is_empty())
            .map(WindowEntry::summary)
            .collect())
    }

    /// Verifies a window id against the last enumeration; returns the entry and a warning on a
    /// name mismatch.
    pub async fn window(
        &self,
        id: &str,
        name: Option<&str>,
    ) -> ToolResult<(WindowEntry, Option<String>)> {
        let maps = self.maps.lock().await;
        if maps.listed_windows.is_empty() {
            return Err(ToolError::model(texts::NO_WINDOWS));
        }
        if id.trim().is_empty() {
            return Err(ToolError::model(texts::empty_id("window")));
        }
        let known: Vec<String> = maps.listed_windows.iter().map(u64::to_string).collect();
        let entry = id
            .trim()
            .parse::<u64>()
            .ok()
            .and_then(|n| maps.window_info.get(&n))
            .ok_or_else(|| ToolError::model(texts::unknown_window(id, &known)))?;
        if !entry.open {
            return Err(ToolError::model(texts::window_gone(id, &entry.name)));
        }
        let warning = name
            .filter(|n| describe::undouble(n) != entry.name)
            .map(|n| texts::name_mismatch(id, &entry.name, n));
        Ok((entry.clone(), warning))
    }

    /// Selects a window: raises and focuses it. Returns the entry.
    pub async fn select(&self, entry: &WindowEntry) -> ToolResult<()> {
        let c = self.connected().await?;
        let x = c.x.clone();
        let pid = entry.pid;
        let title = entry.name.clone();
        let raised = tokio::task::spawn_blocking(move || -> Result<bool, XError> {
            let windows = x.client_windows()?;
            let mine: Vec<_> = windows
                .iter()
                .filter(|w| pid.is_some() && w.pid == pid)
                .collect();
            let pick = mine
                .iter()
                .find(|w| describe::undouble(&w.title) == title)
                .or_else(|| mine.first());
            match pick {
                Some(w) => {
                    x.activate(w.id)?;
                    Ok(true)
                }
                None => Ok(false),
            }
        })
        .await??;
        if !raised {
            // No window manager entry (e.g. no WM): focus through AT-SPI.
            let _ = a11y::grab_focus(&c.a11y, &entry.key).await;
        }
        self.maps.lock().await.selected = Some(entry.id);
        Ok(())
    }

    /// The selected window, checked to still be open.
    pub async fn selected(&self) -> ToolResult<WindowEntry> {
        let maps = self.maps.lock().await;
        let id = maps
            .selected
            .ok_or_else(|| ToolError::model(texts::NO_WINDOW_SELECTED))?;
        let w = maps
            .window_info
            .get(&id)
            .cloned()
            .ok_or_else(|| ToolError::model(texts::NO_WINDOW_SELECTED))?;
        Ok(w)
    }

    /// What to add to the window's AT-SPI extents to get screen coordinates. GTK4 reports
    /// extents relative to its toplevel (the frame at 0,0) even under a window manager; GTK3 and
    /// others report screen coordinates (offset 0). The toplevel's screen position comes from the
    /// X window of the same process and title.
    pub async fn offset(
        &self,
        c: &Connected,
        window: &WindowEntry,
        root_rect: Option<[i32; 4]>,
    ) -> (i32, i32) {
        let root_rect = match root_rect {
            Some(r) => Some(r),
            None => a11y::extents(&c.a11y, &window.key).await.ok().flatten(),
        };
        let Some(r) = root_rect else { return (0, 0) };
        if r[0] != 0 || r[1] != 0 {
            return (0, 0);
        }
        let x = c.x.clone();
        let pid = window.pid;
        let title = window.name.clone();
        let found = tokio::task::spawn_blocking(move || {
            let windows = x.client_windows().ok()?;
            let mine: Vec<_> = windows
                .into_iter()
                .filter(|w| pid.is_some() && w.pid == pid)
                .collect();
            mine.iter()
                .find(|w| describe::undouble(&w.title) == title)
                .or_else(|| mine.first())
                .map(|w| (w.rect[0], w.rect[1]))
        })
        .await
        .ok()
        .flatten();
        found.unwrap_or((0, 0))
    }

    /// The selected window's rect at the last look (refreshed from AT-SPI).
    pub async fn window_rect(&self, window: &WindowEntry) -> ToolResult<[i32; 4]> {
        let c = self.connected().await?;
        if let Ok(Some(r)) = a11y::extents(&c.a11y, &window.key).await {
            let (dx, dy) = self.offset(&c, window, Some(r)).await;
            return Ok([r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy]);
        }
        window.rect.ok_or_else(|| {
            ToolError::model(texts::window_gone(&window.id.to_string(), &window.name))
        })
    }

    /// The windows open now, enumerating again, oldest id first.
    pub async fn open_windows(&self) -> ToolResult<Vec<WindowEntry>> {
        self.list_windows(false, true).await?;
        let maps = self.maps.lock().await;
        let mut out: Vec<WindowEntry> = maps
            .listed_windows
            .iter()
            .filter_map(|id| maps.window_info.get(id))
            .cloned()
            .collect();
        out.sort_by_key(|w| w.id);
        Ok(out)
    }

    /// The `WM_CLASS` class of each of `windows` that has one (its X window found by process
    /// and title), by window id; empty when the window manager cannot be asked.
    pub async fn window_classes(
        &self,
        windows: &[WindowEntry],
    ) -> std::collections::HashMap<u64, String> {
        let Ok(c) = self.connected().await else {
            return Default::default();
        };
        let x = c.x.clone();
        let Ok(Ok(xs)) = tokio::task::spawn_blocking(move || x.client_windows()).await else {
            return Default::default();
        };
        windows
            .iter()
            .filter_map(|w| {
                let mine = xs.iter().filter(|x| w.pid.is_some() && x.pid == w.pid);
                let class = mine
                    .clone()
                    .find(|x| describe::undouble(&x.title) == w.name)
                    .or_else(|| mine.clone().next())
                    .map(|x| x.class.clone())
                    .filter(|c| !c.is_empty())?;
                Some((w.id, class))
            })
            .collect()
    }

    /// A window of process `pid` that is not in `exclude`, enumerating again: the one titled
    /// `title` first, else the first such window.
    pub async fn find_new_window(
        &self,
        pid: u32,
        title: &str,
        exclude: &HashSet<ObjKey>,
    ) -> ToolResult<Option<WindowEntry>> {
        self.list_windows(false, true).await?;
        let maps = self.maps.lock().await;
        let mut candidates: Vec<&WindowEntry> = maps
            .listed_windows
            .iter()
            .filter_map(|id| maps.window_info.get(id))
            .filter(|w| !exclude.contains(&w.key) && w.pid == Some(pid))
            .collect();
        candidates.sort_by_key(|w| w.id);
        Ok(candidates
            .iter()
            .find(|w| w.name == describe::undouble(title))
            .or_else(|| candidates.first())
            .map(|w| (*w).clone()))
    }

    /// The open windows whose root name is one of `roots`, enumerating again.
    pub async fn windows_of(
        &self,
        roots: &std::collections::BTreeSet<String>,
    ) -> ToolResult<Vec<WindowEntry>> {
        self.list_windows(false, true).await?;
        let maps = self.maps.lock().await;
        Ok(maps
            .listed_windows
            .iter()
            .filter_map(|id| maps.window_info.get(id))
            .filter(|w| roots.contains(&w.app))
            .cloned()
            .collect())
    }

    /// Keys of the windows open now.
    pub async fn open_window_keys(&self) -> HashSet<ObjKey> {
        let maps = self.maps.lock().await;
        maps.window_info
            .values()
            .filter(|w| w.open)
            .map(|w| w.key.clone())
            .collect()
    }
}

struct FoundWindow {
    key: ObjKey,
    name: String,
    kind: WindowType,
    app: String,
    pid: Option<u32>,
    rect: Option<[i32; 4]>,
}

async fn enumerate_windows(conn: &Connection) -> ToolResult<Vec<FoundWindow>> {
    let apps = a11y::applications(conn)
        .await
        .map_err(|e| ToolError::unreachable("accessibility registry", e))?;
    let per_app = join_all(apps.into_iter().map(|app| async move {
        let (name, kids, pid) = futures::join!(
            a11y::name(conn, &app),
            a11y::children(conn, &app),
            a11y::bus_pid(conn, &app.bus)
        );
        let app_name = name.unwrap_or_default();
        let root = root_name(pid, &app_name);
        let wins = join_all(kids.unwrap_or_default().into_iter().map(|w| async move {
            let (role, name, states, rect) = futures::join!(
                a11y::role(conn, &w),
                a11y::name(conn, &w),
                a11y::states(conn, &w),
                a11y::extents(conn, &w)
            );
            (
                w,
                role.ok(),
                name.unwrap_or_default(),
                states.ok(),
                rect.ok().flatten(),
            )
        }))
        .await;
        wins.into_iter()
            .filter_map(|(key, role, name, states, rect)| {
                let role = role?;
                let states = states?;
                if !WINDOW_ROLES.contains(&role) || !states.contains(State::Showing) {
                    return None;
                }
                Some(FoundWindow {
                    key,
                    name: describe::undouble(&name),
                    kind: if DIALOG_ROLES.contains(&role) {
                        WindowType::Dialog
                    } else {
                        WindowType::Window
                    },
                    app: root.clone(),
                    pid,
                    rect,
                })
            })
            .collect::<Vec<_>>()
    }))
    .await;
    Ok(per_app.into_iter().flatten().collect())
}

/// Executables that run several applications in one process, and the `WM_CLASS` prefix that
/// names each window's application: LibreOffice's one `soffice.bin` shows Writer, Calc and
/// Impress windows, classed `libreoffice-writer`, `libreoffice-calc`, `libreoffice-impress`.
/// Such a window's root is its class (so the routing table tells them apart); a window without
/// such a class keeps the executable's name.
const MODULE_HOSTS: &[(&str, &str)] = &[("soffice.bin", "libreoffice-")];

/// Whether `app` is a module host's executable: its windows are not named yet (their class is
/// set a moment after they appear).
pub fn is_module_host(app: &str) -> bool {
    MODULE_HOSTS.iter().any(|(exe, _)| *exe == app)
}

/// Renames the roots of module hosts' windows after their X window's class (matched by pid and
/// title).
async fn module_roots(c: &Connected, found: &mut [FoundWindow]) {
    let hosted = |f: &FoundWindow| MODULE_HOSTS.iter().find(|(exe, _)| f.app == *exe);
    if !found.iter().any(|f| hosted(f).is_some()) {
        return;
    }
    let x = c.x.clone();
    let Ok(Ok(windows)) = tokio::task::spawn_blocking(move || x.client_windows()).await else {
        return;
    };
    for f in found.iter_mut() {
        let Some((_, prefix)) = hosted(f) else {
            continue;
        };
        let class = windows
            .iter()
            .find(|w| w.pid.is_some() && w.pid == f.pid && describe::undouble(&w.title) == f.name)
            .map(|w| w.class.as_str())
            .filter(|c| c.starts_with(prefix));
        if let Some(class) = class {
            f.app = class.to_owned();
        }
    }
}

const INTERPRETERS: &[&str] = &[
    "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "bash", "sh", "dash", "zsh",
    "java", "gjs", "lua",
];

fn is_interpreter(exe: &str) -> bool {
    let base = exe.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS.contains(&exe) || INTERPRETERS.contains(&base)
}

/// The root name of a process: the executable's basename, or for an interpreter the basename of
/// the script it runs; the AT-SPI application name when the process cannot be read.
pub fn root_name(pid: Option<u32>, app_name: &str) -> String {
    let Some(pid) = pid else {
        return app_name.to_owned();
    };
    let exe = std::fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    let Some(exe) = exe else {
        return app_name.to_owned();
    };
    if is_interpreter(&exe)
        && let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline"))
    {
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .skip(1)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "-m" {
                if let Some(m) = it.next() {
                    return m.clone();
                }
            } else if a == "-c" {
                break;
            } else if !a.starts_with('-') {
                return std::path::Path::new(a)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| a.clone());
            }
        }
    }
    exe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreters_are_recognised() {
        assert!(is_interpreter("python3.11"));
        assert!(is_interpreter("bash"));
        assert!(!is_interpreter("mousepad"));
    }

    #[test]
    fn root_name_of_this_process_is_its_executable() {
        let me = root_name(Some(std::process::id()), "x");
        assert!(!me.is_empty() && me != "x", "{me}");
        assert_eq!(root_name(None, "gnome-calculator"), "gnome-calculator");
    }
}
