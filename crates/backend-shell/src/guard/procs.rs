//! Which processes are deft's, from `/proc`: this process, its ancestors (whoever started deft
//! may hold the same secrets in its environment), its descendants (tool servers, apps, Chromium,
//! LibreOffice, other `run_shell` programs), and every process of a `deft` executable (a
//! `deft serve` beside a `deft client`, the desktop watchdog). A thread's id counts as its
//! process's.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;

/// How far up a parent chain is followed (a loop guard; real chains are short).
const MAX_DEPTH: usize = 256;

/// This process's view of deft's processes, taken at one check.
pub(crate) struct DeftProcesses {
    me: u32,
    ancestors: HashSet<u32>,
    /// Device and inode of this process's executable.
    exe: Option<(u64, u64)>,
}

impl DeftProcesses {
    /// This process and its ancestors as they are now.
    pub(crate) fn now() -> DeftProcesses {
        let me = std::process::id();
        let mut ancestors = HashSet::new();
        let mut pid = me;
        for _ in 0..MAX_DEPTH {
            match parent(pid) {
                Some(p) if p > 0 && ancestors.insert(p) => pid = p,
                _ => break,
            }
        }
        let exe = std::fs::metadata("/proc/self/exe")
            .ok()
            .map(|m| (m.dev(), m.ino()));
        DeftProcesses { me, ancestors, exe }
    }

    /// Whether the `/proc` entry `id` (a process or thread id) belongs to a deft process.
    pub(crate) fn owns(&self, id: u32) -> bool {
        let pid = thread_group(id).unwrap_or(id);
        pid == self.me
            || self.ancestors.contains(&pid)
            || self.descends_from_me(pid)
            || self.is_deft_executable(pid)
    }

    fn descends_from_me(&self, pid: u32) -> bool {
        let mut at = pid;
        for _ in 0..MAX_DEPTH {
            match parent(at) {
                Some(p) if p == self.me => return true,
                Some(p) if p > 1 => at = p,
                _ => return false,
            }
        }
        false
    }

    fn is_deft_executable(&self, pid: u32) -> bool {
        let exe = format!("/proc/{pid}/exe");
        let same_file = std::fs::metadata(&exe)
            .ok()
            .is_some_and(|m| Some((m.dev(), m.ino())) == self.exe);
        same_file
            || std::fs::read_link(&exe).is_ok_and(|target| {
                target
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n == "deft" || n.starts_with("deft "))
            })
    }
}

/// The parent of process `pid` (field 4 of `/proc/PID/stat`).
fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state ppid …"; comm may hold spaces and parentheses.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

/// The process a thread id belongs to (`Tgid:` of `/proc/ID/status`).
fn thread_group(id: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{id}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_its_threads_parents_and_children_are_deft_s() {
        let deft = DeftProcesses::now();
        assert!(deft.owns(std::process::id()));
        let parent = parent(std::process::id()).expect("a parent");
        assert!(deft.owns(parent));
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep");
        assert!(deft.owns(child.id()));
        // A thread of this process, by its own id.
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let link = std::fs::read_link("/proc/thread-self").expect("thread-self");
            let tid = link.file_name().and_then(|n| n.to_str()).map(str::to_owned);
            tx.send(tid.and_then(|t| t.parse::<u32>().ok()).expect("tid"))
                .expect("send");
            let _ = done_rx.recv();
        });
        let tid = rx.recv().expect("tid");
        assert_ne!(tid, std::process::id());
        assert!(deft.owns(tid));
        let _ = done_tx.send(());
        thread.join().expect("thread");
        let _ = child.kill();
        let _ = child.wait();
    }

    #[test]
    fn an_unrelated_process_is_not() {
        // A grandchild whose parent exits is reparented (to init or a subreaper above this
        // process): neither this process, its ancestor, nor its descendant.
        let out = std::process::Command::new("sh")
            .args(["-c", "sleep 30 >/dev/null 2>&1 & echo $!"])
            .output()
            .expect("sh");
        let orphan: u32 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("pid");
        assert!(
            !DeftProcesses::now().owns(orphan),
            "an orphan is not deft's"
        );
        let _ = rustix::process::kill_process(
            rustix::process::Pid::from_raw(orphan as i32).expect("pid"),
            rustix::process::Signal::KILL,
        );
    }
}
