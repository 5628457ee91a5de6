//! What `run_shell` may not read and may not print: the files of deft's own processes under
//! `/proc` (their environment, command line, memory, open files and threads hold deft's
//! secrets), deft's data folder (key file, database, tokens), the memory devices, and — in any
//! output — the secrets deft knows ([`deft_tools::secrets::values`]).
//!
//! There is no shell, so a program reads exactly the files its arguments name. Every part of an
//! argument that could name a file — the word itself, an option's attached or `=` value, each
//! `:`/`,`-separated piece — is followed from the working directory as the kernel will follow
//! it (relative paths, `..`, symbolic links, `/proc/self`, `/proc/thread-self`, `/dev/fd`), and
//! the call is refused when any of them reaches a protected file. Programs that read whole
//! folders (`grep -r`, `diff`) may not be given a folder that holds one.

mod procs;
mod walk;

use std::fmt;
use std::path::{Path, PathBuf};

use procs::DeftProcesses;

use crate::getopt::{self, Word};
use crate::option_rules::{Operands, OptionRules};
use crate::output::ShellOutput;
use crate::texts;

/// Entries of a deft process's `/proc` folder that may be read: status and accounting, no
/// secrets. Everything else there (`environ`, `cmdline`, `mem`, `maps`, `fd`, `task`, `root`,
/// …) is refused.
const OPEN_PROC_ENTRIES: &[&str] = &[
    "stat",
    "statm",
    "status",
    "comm",
    "limits",
    "io",
    "cgroup",
    "sched",
    "wchan",
    "oom_score",
    "mounts",
    "mountinfo",
    "net",
];

/// Files that expose the machine's memory.
const MEMORY_FILES: &[&str] = &["/proc/kcore", "/dev/mem", "/dev/kmem", "/dev/port"];

/// Programs that read every file of a folder they are given (`diff` one level deep even
/// without `-r`).
const FOLDER_READERS: &[&str] = &["grep", "egrep", "fgrep", "rgrep", "diff"];

/// How many argument parts one call may make the guard follow.
const MAX_PARTS: usize = 10_000;

/// A protected folder (or file) and the folders inside it that are not.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Protected {
    path: PathBuf,
    except: Vec<PathBuf>,
}

/// What `run_shell` keeps from the model: deft's processes' files and the memory devices always,
/// the folders given to [`Guard::protect`], and deft's secrets in every output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Guard {
    protected: Vec<Protected>,
}

/// Why a call was refused; displays as the model-facing text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocked {
    /// A path leads into the `/proc` folder of one of deft's processes.
    DeftProcess {
        /// The argument (or working directory) as given.
        given: String,
        /// Where it leads.
        path: PathBuf,
        /// The process.
        pid: u32,
    },
    /// A path leads into a protected folder (deft's data folder).
    Protected {
        /// The argument as given.
        given: String,
        /// Where it leads.
        path: PathBuf,
        /// The protected folder.
        folder: PathBuf,
    },
    /// A path leads to a memory device.
    Memory {
        /// The argument as given.
        given: String,
        /// Where it leads.
        path: PathBuf,
    },
    /// A program that reads whole folders was given one that holds protected files.
    Holds {
        /// The program.
        program: String,
        /// The argument (or working directory) as given.
        given: String,
        /// The folder.
        path: PathBuf,
    },
    /// Too many argument parts to follow.
    TooLong {
        /// How many there were.
        parts: usize,
    },
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Blocked::DeftProcess { given, path, pid } => {
                texts::blocked_deft_process(given, path, *pid)
            }
            Blocked::Protected {
                given,
                path,
                folder,
            } => texts::blocked_protected(given, path, folder),
            Blocked::Memory { given, path } => texts::blocked_memory(given, path),
            Blocked::Holds {
                program,
                given,
                path,
            } => texts::blocked_holds(program, given, path),
            Blocked::TooLong { parts } => texts::blocked_too_long(*parts),
        };
        f.write_str(&text)
    }
}

impl std::error::Error for Blocked {}

impl Guard {
    /// Also protects `path` (a folder or a file) except the folders `except` inside it. The path
    /// is taken with its links resolved when it exists, else made absolute.
    pub fn protect(mut self, path: &Path, except: &[PathBuf]) -> Guard {
        let real = |p: &Path| {
            p.canonicalize()
                .or_else(|_| std::path::absolute(p))
                .unwrap_or_else(|_| p.to_path_buf())
        };
        self.protected.push(Protected {
            path: real(path),
            except: except.iter().map(|p| real(p)).collect(),
        });
        self
    }

    /// Checks what `argv` (program first) would read from `cwd` (absolute, without links).
    pub fn check(&self, argv: &[String], cwd: &Path) -> Result<(), Blocked> {
        let deft = DeftProcesses::now();
        let Some((program, args)) = argv.split_first() else {
            return Ok(());
        };
        let given_cwd = cwd.display().to_string();
        self.follow(&deft, cwd, Path::new("/"), &given_cwd)?;
        let reads_folders = FOLDER_READERS.contains(&program.as_str());
        let holds = |given: &str, path: PathBuf| Blocked::Holds {
            program: program.clone(),
            given: given.to_owned(),
            path,
        };
        if reads_folders && searches_cwd(program, args) && self.holds(cwd) {
            return Err(holds(&given_cwd, cwd.to_path_buf()));
        }
        let count: usize = args.iter().map(|a| part_count(a)).sum();
        if count > MAX_PARTS {
            return Err(Blocked::TooLong { parts: count });
        }
        for arg in args {
            for part in file_parts(arg) {
                let Some(end) = self.follow(&deft, Path::new(part), cwd, arg)? else {
                    continue;
                };
                if reads_folders && end.is_dir() && self.holds(&end) {
                    return Err(holds(arg, end));
                }
            }
        }
        Ok(())
    }

    /// Follows `path` from `cwd`, refusing at the first protected place.
    fn follow(
        &self,
        deft: &DeftProcesses,
        path: &Path,
        cwd: &Path,
        given: &str,
    ) -> Result<Option<PathBuf>, Blocked> {
        walk::walk(path, cwd, &mut |at, end| self.refuse(deft, at, end, given))
    }

    /// Whether the real path `at` may be entered on the way (`end` false) or read (`end` true).
    fn refuse(
        &self,
        deft: &DeftProcesses,
        at: &Path,
        end: bool,
        given: &str,
    ) -> Result<(), Blocked> {
        let blocked = |make: fn(String, PathBuf) -> Blocked| Err(make(given.to_owned(), at.into()));
        if MEMORY_FILES.iter().any(|m| at == Path::new(m)) {
            return blocked(|given, path| Blocked::Memory { given, path });
        }
        if let Some(folder) = self.inside(at, end) {
            return Err(Blocked::Protected {
                given: given.to_owned(),
                path: at.to_path_buf(),
                folder,
            });
        }
        if let Some((pid, entry)) = proc_entry(at)
            && entry.is_some_and(|e| !OPEN_PROC_ENTRIES.contains(&e))
            && deft.owns(pid)
        {
            return Err(Blocked::DeftProcess {
                given: given.to_owned(),
                path: at.to_path_buf(),
                pid,
            });
        }
        Ok(())
    }

    /// The protected folder `at` lies in, unless an exception holds it. The folder itself may be
    /// passed through on the way to an exception, not read (listed).
    fn inside(&self, at: &Path, end: bool) -> Option<PathBuf> {
        self.protected
            .iter()
            .find(|p| {
                at.starts_with(&p.path)
                    && (end || at != p.path)
                    && !p.except.iter().any(|e| at.starts_with(e))
            })
            .map(|p| p.path.clone())
    }

    /// Whether the folder `at` holds something protected: a protected folder, `/proc` (deft's
    /// processes, and every process's `root` link back to `/`) or `/dev`'s memory devices.
    fn holds(&self, at: &Path) -> bool {
        let fixed = ["/proc", "/dev"].iter().map(Path::new);
        self.protected.iter().any(|p| p.path.starts_with(at))
            || fixed.clone().any(|f| f.starts_with(at))
            || at.starts_with("/proc")
    }

    /// Replaces every secret deft knows in `output` with `[hidden]`, and a secret's beginning
    /// where a line was cut; says so in stderr.
    pub fn hide(&self, output: &mut ShellOutput) {
        let secrets = deft_tools::secrets::values();
        let mut hidden = false;
        for text in [&mut output.stdout, &mut output.stderr] {
            hidden |= deft_tools::secrets::hide_in(text, &secrets);
            hidden |= hide_cut_secrets(text, &secrets);
        }
        if hidden {
            if !output.stderr.is_empty() && !output.stderr.ends_with('\n') {
                output.stderr.push('\n');
            }
            output.stderr.push_str(texts::SECRETS_HIDDEN);
        }
    }
}

/// `(pid, first entry)` when `at` is `/proc/PID` or inside it.
fn proc_entry(at: &Path) -> Option<(u32, Option<&str>)> {
    let rest = at.strip_prefix("/proc").ok()?;
    let mut parts = rest.iter();
    let pid = parts.next()?.to_str()?.parse().ok()?;
    Some((pid, parts.next().and_then(|e| e.to_str())))
}

/// Where the parts of one argument that could name a file begin: the word's start; for an
/// option (`-…`) every position after its dash (`-f/etc/x`, `--file=/etc/x`); after each `=`,
/// `:` and `,`.
fn part_starts(arg: &str) -> Vec<usize> {
    let mut starts = vec![0];
    for (at, c) in arg.char_indices() {
        if matches!(c, '=' | ':' | ',') {
            starts.push(at + 1);
        } else if arg.starts_with('-') && at > 0 {
            starts.push(at);
        }
    }
    starts
}

/// Where those parts may end: before each `:` and `,` (`a:/etc/x:b`), and at the word's end.
fn part_ends(arg: &str) -> Vec<usize> {
    let mut ends: Vec<usize> = arg
        .char_indices()
        .filter(|(_, c)| matches!(c, ':' | ','))
        .map(|(at, _)| at)
        .collect();
    ends.push(arg.len());
    ends
}

/// How many parts [`file_parts`] makes of `arg`, at most (counted before making them).
fn part_count(arg: &str) -> usize {
    part_starts(arg).len().saturating_mul(part_ends(arg).len())
}

/// The parts of one argument that could name a file: every piece from a [`part_starts`] to a
/// [`part_ends`] position.
fn file_parts(arg: &str) -> Vec<&str> {
    let ends = part_ends(arg);
    let mut parts: Vec<&str> = part_starts(arg)
        .into_iter()
        .flat_map(|s| {
            ends.iter()
                .filter(move |&&e| e > s)
                .map(move |&e| &arg[s..e])
        })
        .collect();
    parts.sort_unstable();
    parts.dedup();
    parts
}

/// grep's options, as far as telling its pattern and its files apart needs them.
static GREP: OptionRules = OptionRules {
    denied_short: "",
    denied_long: &[],
    short_with_value: "efmABCdDX",
    short_optional_value: "",
    long_with_value: &[
        "after-context",
        "before-context",
        "binary-files",
        "context",
        "devices",
        "directories",
        "exclude",
        "exclude-dir",
        "exclude-from",
        "file",
        "group-separator",
        "include",
        "label",
        "max-count",
        "regexp",
    ],
    long_flags: &[
        "basic-regexp",
        "binary",
        "byte-offset",
        "color",
        "colour",
        "count",
        "dereference-recursive",
        "extended-regexp",
        "files-with-matches",
        "files-without-match",
        "fixed-strings",
        "help",
        "ignore-case",
        "initial-tab",
        "invert-match",
        "line-buffered",
        "line-number",
        "line-regexp",
        "no-filename",
        "no-group-separator",
        "no-ignore-case",
        "no-messages",
        "null",
        "null-data",
        "only-matching",
        "perl-regexp",
        "quiet",
        "recursive",
        "silent",
        "text",
        "version",
        "with-filename",
        "word-regexp",
    ],
    operands: Operands::Any,
    why: "",
};

/// Whether a grep reads its working directory: recursive (`rgrep`, or an option that could
/// mean recursion — `-r`, `-R`, `-d recurse`, `--recursive`, `--directories=recurse` — read
/// generously) with no file operand, so that it searches `.`. diff always names what it reads.
fn searches_cwd(program: &str, args: &[String]) -> bool {
    if program == "diff" {
        return false;
    }
    let words = getopt::words(&GREP, args);
    let recursive = program == "rgrep"
        || args.iter().any(|a| a.contains("recurse"))
        || words.iter().any(|w| match w {
            Word::Short { letter, .. } => matches!(letter, 'r' | 'R' | 'd'),
            Word::Long { name, .. } => ["recursive", "dereference-recursive", "directories"]
                .iter()
                .any(|long| long.starts_with(name)),
            Word::Operand(_) => false,
        });
    let pattern_given = words.iter().any(|w| match w {
        Word::Short { letter, .. } => matches!(letter, 'e' | 'f'),
        Word::Long { name, .. } => {
            getopt::long_means(&GREP, name, "regexp") || getopt::long_means(&GREP, name, "file")
        }
        Word::Operand(_) => false,
    });
    let operands = words
        .iter()
        .filter(|w| matches!(w, Word::Operand(_)))
        .count();
    let files = if pattern_given {
        operands
    } else {
        operands.saturating_sub(1)
    };
    recursive && files == 0
}

/// Hides the beginning of a secret (four characters or more) that ends a line: what a program
/// that cuts its lines (`ps`, `cut`) leaves of a secret.
fn hide_cut_secrets(text: &mut String, secrets: &[String]) -> bool {
    const MIN_CUT: usize = 4;
    let mut hidden = false;
    let lines: Vec<String> = text
        .split_inclusive('\n')
        .map(|line| {
            let (body, end) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            };
            let cut = secrets.iter().find_map(|s| {
                (MIN_CUT..s.len())
                    .rev()
                    .filter(|&n| s.is_char_boundary(n))
                    .find(|&n| body.ends_with(&s[..n]))
            });
            match cut {
                Some(n) => {
                    hidden = true;
                    format!(
                        "{}{}{end}",
                        &body[..body.len() - n],
                        deft_tools::secrets::HIDDEN
                    )
                }
                None => line.to_owned(),
            }
        })
        .collect();
    if hidden {
        *text = lines.concat();
    }
    hidden
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_names_files_in_many_places() {
        assert_eq!(file_parts("/etc/x"), ["/etc/x"]);
        let parts = file_parts("-f/etc/x");
        assert!(
            parts.contains(&"/etc/x") && parts.contains(&"-f/etc/x"),
            "{parts:?}"
        );
        let parts = file_parts("--file=/etc/x");
        assert!(parts.contains(&"/etc/x"), "{parts:?}");
        let parts = file_parts("magic:/etc/x:other");
        assert!(parts.contains(&"/etc/x"), "{parts:?}");
        let parts = file_parts("if=/etc/x");
        assert!(parts.contains(&"/etc/x"), "{parts:?}");
        assert_eq!(file_parts("plain"), ["plain"]);
    }

    #[test]
    fn a_secret_cut_at_a_line_end_is_hidden_too() {
        let secrets = vec!["abcdefghijkl".to_owned()];
        let mut text = "deft --token abcdefg\nnext line\n".to_owned();
        assert!(hide_cut_secrets(&mut text, &secrets));
        assert_eq!(text, "deft --token [hidden]\nnext line\n");
        let mut short = "ends with abc".to_owned();
        assert!(
            !hide_cut_secrets(&mut short, &secrets),
            "three characters say nothing"
        );
    }

    #[test]
    fn a_recursive_grep_without_files_searches_its_working_directory() {
        let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(searches_cwd("grep", &args(&["-rn", "x"])));
        assert!(searches_cwd("grep", &args(&["--directories=recurse", "x"])));
        assert!(searches_cwd("grep", &args(&["--recur", "x"])));
        assert!(searches_cwd("grep", &args(&["-R", "-e", "x"])));
        assert!(searches_cwd("rgrep", &args(&["x"])));
        assert!(!searches_cwd("grep", &args(&["-rn", "x", "src"])));
        assert!(!searches_cwd("grep", &args(&["-r", "-e", "x", "src"])));
        assert!(!searches_cwd("grep", &args(&["-n", "x"])));
        assert!(!searches_cwd("diff", &args(&["-r", "a", "b"])));
        // A value is not a file: `-m 5` leaves no operand but the pattern.
        assert!(searches_cwd("grep", &args(&["-r", "-m", "5", "x"])));
    }

    #[test]
    fn a_protected_folder_given_relative_is_protected_where_it_will_be() {
        let guard = Guard::default().protect(Path::new("not-yet-made/data"), &[]);
        let here = std::env::current_dir().expect("cwd");
        assert_eq!(guard.protected[0].path, here.join("not-yet-made/data"));
        assert!(
            guard
                .inside(&here.join("not-yet-made/data/secret.key"), true)
                .is_some()
        );
    }

    #[test]
    fn proc_entries_are_split_into_pid_and_entry() {
        assert_eq!(
            proc_entry(Path::new("/proc/12/environ")),
            Some((12, Some("environ")))
        );
        assert_eq!(proc_entry(Path::new("/proc/12")), Some((12, None)));
        assert_eq!(proc_entry(Path::new("/proc/self")), None);
        assert_eq!(proc_entry(Path::new("/etc/passwd")), None);
    }
}
