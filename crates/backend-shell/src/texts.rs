//! Every text this server shows the model — tool descriptions, parameter descriptions, refusals,
//! errors and notes — plus the operator-facing configuration errors. They are part of the prompt:
//! keep them short, precise and stable, and keep them here so they are reviewed in one place.

use std::path::Path;

// ---- server and tool descriptions -------------------------------------------------------------

/// Server name announced in `initialize`.
pub(crate) const SERVER_NAME: &str = "deft-shell";

/// The server's `instructions`.
pub(crate) fn instructions(programs: &[&str]) -> String {
    format!(
        "Inspect this machine. get_system_info reports the OS, kernel, CPUs, load, memory, root disk \
         and user. run_shell runs one allow-listed program with its arguments, without a shell. \
         Allowed programs: {}.",
        programs.join(", ")
    )
}

/// The limits `run_shell`'s description names: the time limits (s), the output cap (bytes), the
/// memory (MiB) and the processes one program may use.
pub(crate) struct RunLimits {
    /// The default timeout.
    pub default_timeout_secs: u64,
    /// The longest timeout.
    pub max_timeout_secs: u64,
    /// Where stdout and stderr are each cut.
    pub output_cap: usize,
    /// The memory one program may use.
    pub memory_mib: u64,
    /// The processes or threads one program may start.
    pub max_processes: u64,
}

/// Description of `run_shell`; `programs` is the allow-list with each program's limit in a few
/// words (none: any arguments).
pub(crate) fn run_shell_description(programs: &[(&str, Option<String>)], l: &RunLimits) -> String {
    let names: Vec<&str> = programs.iter().map(|(name, _)| *name).collect();
    let limits: Vec<String> = programs
        .iter()
        .filter_map(|(name, limit)| limit.as_ref().map(|limit| format!("{name} {limit}")))
        .collect();
    let mut text = format!(
        "Run one program with its arguments on this machine, without a shell, and get \
         {{exit_code, stdout, stderr, timed_out, truncated}}. Write the command as in a POSIX shell \
         (quote arguments that contain spaces). Pipes, redirection, ';', '&', '$(...)', '${{...}}' \
         and backticks are refused; variables, globs (*) and ~ are not expanded. The program must \
         be a bare name from this allow-list: {}.",
        names.join(", ")
    );
    if !limits.is_empty() {
        text.push_str(&format!(" Limits: {}.", limits.join("; ")));
    }
    text.push_str(&format!(
        " timeout is in seconds (default {}, at most {}); on \
         timeout the program and everything it started are killed and the call fails with the \
         output so far. stdout and stderr are each cut \
         at {} KiB (truncated: true). A program may use at most {} MiB of memory and \
         start at most {} processes or threads; one that needs more is stopped and \
         the call fails. deft's own processes under /proc and deft's data folder cannot be read.",
        l.default_timeout_secs,
        l.max_timeout_secs,
        l.output_cap / 1024,
        l.memory_mib,
        l.max_processes
    ));
    text
}

/// Description of `get_system_info`.
pub(crate) const GET_SYSTEM_INFO_DESCRIPTION: &str = "Report this machine's OS name, kernel version, \
     hostname, CPU architecture and count, load average (1, 5, 15 min), uptime, total and available \
     memory, root filesystem size and free space, and the current user. Takes no arguments.";

/// Schema description of `run_shell`'s arguments.
pub(crate) const RUN_SHELL_PARAMS: &str = "Arguments of run_shell.";

/// `run_shell` parameter `command`.
pub(crate) const PARAM_COMMAND: &str = "The program and its arguments, e.g. \"ls -la /var/log\" or \
     \"grep -rn TODO 'my dir'\". One program only; no pipes, redirection or chaining.";

/// `run_shell` parameter `timeout`.
pub(crate) const PARAM_TIMEOUT: &str =
    "Time limit in seconds, 1 to 120 (default 30). Values outside are clamped.";

/// `run_shell` parameter `cwd`.
pub(crate) const PARAM_CWD: &str = "Working directory: an existing directory, preferably an \
     absolute path (~ is not expanded). Default: the server's own working directory.";

/// Schema description of `run_shell`'s result.
pub(crate) const OUT_SHELL: &str = "How the program ended and what it printed.";

/// `run_shell` result field `exit_code`.
pub(crate) const OUT_EXIT_CODE: &str =
    "The program's exit status; null when it was killed by a signal or timed out.";
/// `run_shell` result field `stdout`.
pub(crate) const OUT_STDOUT: &str = "Standard output (UTF-8, invalid bytes replaced).";
/// `run_shell` result field `stderr`.
pub(crate) const OUT_STDERR: &str =
    "Standard error, followed by a note in [brackets] when the program was killed or timed out.";
/// `run_shell` result field `timed_out`.
pub(crate) const OUT_TIMED_OUT: &str =
    "True when the time limit passed and the program was killed.";
/// `run_shell` result field `truncated`.
pub(crate) const OUT_TRUNCATED: &str =
    "True when stdout or stderr was longer than the cap and was cut.";

// ---- get_system_info result fields ------------------------------------------------------------

/// Schema description of `get_system_info`'s result.
pub(crate) const OUT_SYSTEM_INFO: &str =
    "Facts about this machine; a fact that could not be read is null.";

/// `get_system_info` field `os`.
pub(crate) const SYS_OS: &str = "OS name (PRETTY_NAME from /etc/os-release).";
/// `get_system_info` field `kernel`.
pub(crate) const SYS_KERNEL: &str = "Kernel release.";
/// `get_system_info` field `hostname`.
pub(crate) const SYS_HOSTNAME: &str = "Host name.";
/// `get_system_info` field `arch`.
pub(crate) const SYS_ARCH: &str = "CPU architecture, e.g. x86_64.";
/// `get_system_info` field `cpus`.
pub(crate) const SYS_CPUS: &str = "Number of online CPUs.";
/// `get_system_info` field `load_average`.
pub(crate) const SYS_LOAD: &str = "Load average over 1, 5 and 15 minutes.";
/// `get_system_info` field `uptime_secs`.
pub(crate) const SYS_UPTIME: &str = "Seconds since boot.";
/// `get_system_info` field `memory_total_bytes`.
pub(crate) const SYS_MEM_TOTAL: &str = "Total memory in bytes.";
/// `get_system_info` field `memory_available_bytes`.
pub(crate) const SYS_MEM_AVAILABLE: &str = "Memory available for new programs, in bytes.";
/// `get_system_info` field `disk_root`.
pub(crate) const SYS_DISK_ROOT: &str = "Size and free space of the root filesystem (/).";
/// `get_system_info` field `user`.
pub(crate) const SYS_USER: &str = "The user the tools run as.";
/// `get_system_info` field `total_bytes`.
pub(crate) const SYS_DISK_TOTAL: &str = "Filesystem size in bytes.";
/// `get_system_info` field `available_bytes`.
pub(crate) const SYS_DISK_AVAILABLE: &str = "Bytes available to unprivileged users.";

// ---- refusals ---------------------------------------------------------------------------------

const SHELL_SYNTAX: &str = "pipes, redirection, command chaining and substitution are not \
     allowed; run one program with its arguments";
const CONTROL_CHARACTER: &str = "run one command per call, on one line";
const NETWORK_DEVICE: &str = "network access through /dev/tcp and /dev/udp is not allowed";

/// How a dangerous pattern is shown in a refusal.
fn pattern_label(pattern: &str) -> String {
    match pattern {
        "\n" => "a newline".to_owned(),
        "\r" => "a carriage return".to_owned(),
        "\0" => "a NUL byte".to_owned(),
        other => format!("'{other}'"),
    }
}

fn pattern_reason(pattern: &str) -> &'static str {
    match pattern {
        "\n" | "\r" | "\0" => CONTROL_CHARACTER,
        p if p.starts_with("/dev/") => NETWORK_DEVICE,
        _ => SHELL_SYNTAX,
    }
}

/// The sentence naming the allow-list, after every refusal that is not about one program's
/// arguments.
pub(crate) fn allowed_programs(allowed: &[String]) -> String {
    format!("Allowed programs: {}.", allowed.join(", "))
}

/// An empty command.
pub(crate) fn refused_empty(allowed: &str) -> String {
    format!(
        "Refused: the command is empty. Give one program and its arguments, e.g. \"ls -la /tmp\". \
         {allowed}"
    )
}

/// A command with a dangerous pattern in it.
pub(crate) fn refused_pattern(pattern: &str, allowed: &str) -> String {
    format!(
        "Refused: the command contains {} ({}). {allowed}",
        pattern_label(pattern),
        pattern_reason(pattern)
    )
}

/// A command that cannot be split into arguments.
pub(crate) fn refused_unbalanced(allowed: &str) -> String {
    format!(
        "Refused: the command has an unclosed quote or a trailing backslash, so it cannot be \
         split into arguments; close every ' and \" quote. {allowed}"
    )
}

/// A program given as a path.
pub(crate) fn refused_path(given: &str, name: &str, allowed: &str) -> String {
    format!(
        "Refused: the program is given as a path ('{given}'); give only its name ('{name}'), \
         which is looked up on PATH. {allowed}"
    )
}

/// A program off the allow-list.
pub(crate) fn refused_program(program: &str, allowed: &str) -> String {
    format!("Refused: '{program}' is not on this machine's allow-list for run_shell. {allowed}")
}

/// A refused argument (`None`: the wrong number of them); `accepted` says what is allowed.
pub(crate) fn refused_argument(program: &str, argument: Option<&str>, accepted: &str) -> String {
    let what = match argument {
        Some(argument) => format!("the argument '{argument}' is not allowed for {program}"),
        None => format!("{program} was given the wrong number of arguments"),
    };
    format!("Refused: {what}. {accepted}")
}

/// A program that takes any arguments.
pub(crate) fn accepts_any(program: &str) -> String {
    format!("{program} accepts any arguments.")
}

/// A program that takes any arguments but `tokens`.
pub(crate) fn accepts_all_but(program: &str, tokens: &[&str], why: &str) -> String {
    format!(
        "{program} may run with any arguments except {} ({why}).",
        tokens.join(", ")
    )
}

/// A program allowed only with one of `one_of`.
pub(crate) fn accepts_exactly_one(program: &str, one_of: &[&str], why: &str) -> String {
    let forms: Vec<String> = one_of
        .iter()
        .map(|a| format!("\"{program} {a}\""))
        .collect();
    format!(
        "{program} is allowed only as {} ({why}).",
        forms.join(" or ")
    )
}

/// A program allowed with no arguments or only `flags`.
pub(crate) fn accepts_only_flags(program: &str, flags: &[&str], why: &str) -> String {
    format!(
        "{program} is allowed with no arguments or only these flags: {} ({why}).",
        flags.join(", ")
    )
}

/// `ps` without its e modifier.
pub(crate) fn accepts_ps(program: &str, why: &str) -> String {
    format!(
        "{program} may run with any options except its e modifier ({why}); -e (all \
         processes) is fine."
    )
}

/// GNU options with some refused (`denied`: `-o, --out`, or none) and a rule for the operands.
pub(crate) fn accepts_options(
    program: &str,
    denied: Option<&str>,
    operands: OperandRule,
    why: &str,
) -> String {
    let options = match denied {
        Some(denied) => format!("any options except {denied}"),
        None => "any options".to_owned(),
    };
    let operands = match operands {
        OperandRule::Any => String::new(),
        OperandRule::PlusFormat => ", and only with +FORMAT operands".to_owned(),
        OperandRule::AtMost(n) => format!(", and only with at most {}", operand_count(n)),
    };
    format!("{program} may run with {options}{operands} ({why}).")
}

/// What a program's operands may be, as the texts say it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum OperandRule {
    /// Any.
    Any,
    /// Only `+FORMAT`.
    PlusFormat,
    /// At most this many file operands.
    AtMost(usize),
}

/// The description's limit of `ps`.
pub(crate) const LIMIT_PS: &str = "without the e modifier (environments)";

/// The description's limit of a program that takes any arguments but `tokens`.
pub(crate) fn limit_all_but(tokens: &[&str]) -> String {
    format!("without {}", tokens.join(", "))
}

/// The description's limit of a program allowed only with one of `one_of`.
pub(crate) fn limit_exactly_one(one_of: &[&str]) -> String {
    format!("only {}", one_of.join(" or "))
}

/// The description's limit of a program that may only print (`flags`).
pub(crate) fn limit_only_flags(flags: &[&str]) -> String {
    format!("only to print it ({})", flags.join(", "))
}

/// The description's limit of GNU options with some refused and a rule for the operands.
pub(crate) fn limit_options(denied: Option<&str>, operands: OperandRule) -> String {
    let mut limits: Vec<String> = denied.map(|d| format!("without {d}")).into_iter().collect();
    match operands {
        OperandRule::Any => {}
        OperandRule::PlusFormat => limits.push("operands only +FORMAT".to_owned()),
        OperandRule::AtMost(n) => limits.push(format!("at most {}", operand_count(n))),
    }
    limits.join(", ")
}

fn operand_count(n: usize) -> String {
    match n {
        1 => "one file operand".to_owned(),
        n => format!("{n} file operands"),
    }
}

/// Why `find` loses its action primaries.
pub(crate) const WHY_FIND: &str = "they run other programs or write or delete files";
/// Why `python`/`python3` may only print the version.
pub(crate) const WHY_PYTHON: &str = "running Python code is not allowed";
/// Why `sort` loses `-o` and `--compress-program`.
pub(crate) const WHY_SORT: &str = "they write files or run other programs";
/// Why `date` loses `-s` and plain operands.
pub(crate) const WHY_DATE: &str =
    "they set the system clock, and so does an operand without a leading '+'";
/// Why `hostname` may only print.
pub(crate) const WHY_HOSTNAME: &str = "other arguments set the hostname";
/// Why `uniq` takes one file operand.
pub(crate) const WHY_UNIQ: &str = "a second operand is an output file that uniq would write";
/// Why `ps` loses its `e` modifier.
pub(crate) const WHY_PS: &str = "it prints each process's environment, where secrets live";
/// Why `file` loses `-C`.
pub(crate) const WHY_FILE: &str = "it writes a compiled magic file";

// ---- what run_shell may not read (guard) ------------------------------------------------------

/// A path into one of deft's own processes under /proc.
pub(crate) fn blocked_deft_process(given: &str, path: &Path, pid: u32) -> String {
    format!(
        "Refused: '{given}' leads to {}, a file of one of deft's own processes (pid {pid}). \
         run_shell may not read deft's processes' environment, command line, memory, open \
         files or threads under /proc: they hold deft's secrets (its model key and tokens). \
         Their stat, status and limits files may be read; to list processes use ps (without \
         its e modifier) or get_system_info.",
        path.display()
    )
}

/// A path inside deft's data folder.
pub(crate) fn blocked_protected(given: &str, path: &Path, folder: &Path) -> String {
    format!(
        "Refused: '{given}' leads to {}, inside {}, deft's own data folder (its key file, \
         database and tokens); run_shell may not read it. Work with files outside it.",
        path.display(),
        folder.display()
    )
}

/// A path to the machine's memory.
pub(crate) fn blocked_memory(given: &str, path: &Path) -> String {
    format!(
        "Refused: '{given}' leads to {}, which exposes the machine's memory; run_shell may \
         not read it.",
        path.display()
    )
}

/// A folder reader given a folder that holds what may not be read.
pub(crate) fn blocked_holds(program: &str, given: &str, path: &Path) -> String {
    format!(
        "Refused: {program} would read the folder {} ('{given}') and everything in it, which \
         includes deft's own processes under /proc or deft's data folder, and run_shell may \
         not read those. Give {program} a narrower folder (with a recursive search, name it \
         as an argument, or set cwd to it).",
        path.display()
    )
}

/// Too many argument parts to follow.
pub(crate) fn blocked_too_long(parts: usize) -> String {
    format!(
        "Refused: the arguments name {parts} possible file paths, more than run_shell checks \
         in one call; run a shorter command."
    )
}

/// The check of what a call may read could not run.
pub(crate) fn check_failed(error: &dyn std::fmt::Display) -> String {
    format!("Error: the command could not be checked before running: {error}. Please retry.")
}

/// Appended to stderr when secrets were taken out of the output.
pub(crate) const SECRETS_HIDDEN: &str = "[deft's secrets in this output were replaced by [hidden]]";

// ---- execution errors and notes ---------------------------------------------------------------

/// The allowed program is not installed.
pub(crate) fn not_found_on_path(program: &str, path: &str) -> String {
    format!(
        "Error: '{program}' is allowed but was not found on PATH ({path}); it is not installed on \
         this machine. Use another allowed program."
    )
}

/// `cwd` does not exist.
pub(crate) fn cwd_missing(cwd: &str) -> String {
    format!(
        "Error: the working directory '{cwd}' does not exist. Give an existing directory, \
         preferably as an absolute path (~ and variables are not expanded), or omit cwd."
    )
}

/// `cwd` is a file or something else.
pub(crate) fn cwd_not_directory(cwd: &str) -> String {
    format!(
        "Error: the working directory '{cwd}' is not a directory. Give a directory, or omit cwd."
    )
}

/// `cwd` cannot be inspected.
pub(crate) fn cwd_unusable(cwd: &str, error: &std::io::Error) -> String {
    format!(
        "Error: the working directory '{cwd}' cannot be used: {error}. Give another directory, or omit cwd."
    )
}

/// The program could not be started.
pub(crate) fn spawn_failed(program: &str, error: &std::io::Error) -> String {
    format!(
        "Error: '{program}' could not be started: {error}. Please retry or execute a different \
         command."
    )
}

/// Waiting for the program failed.
pub(crate) fn wait_failed(error: &std::io::Error) -> String {
    format!(
        "Error: waiting for the program failed: {error}. Please retry or execute a different command."
    )
}

/// The executor was handed an empty argv.
pub(crate) const NO_PROGRAM: &str = "Error: no program was given.";

/// The call was cancelled while the program ran.
pub(crate) const CANCELLED: &str =
    "Cancelled: the call was cancelled; the program and everything it started were killed.";

/// Appended to stderr when the program died from a signal.
pub(crate) fn killed_by_signal(signal: i32) -> String {
    format!("[killed by signal {signal}]")
}

/// Appended to stderr when the time limit passed.
pub(crate) fn timed_out(secs: u64) -> String {
    format!("[timed out after {secs} s; the program and everything it started were killed]")
}

/// `run_shell` failed because the time limit passed: what ran, and the output it left.
pub(crate) fn run_timed_out(
    program: &str,
    secs: u64,
    max_secs: u64,
    stdout: &str,
    stderr: &str,
) -> String {
    let mut text = format!(
        "Error: {program} did not finish within its time limit of {secs} s; it and everything it \
         started were killed, so it may have done only part of its work. Retry with a longer \
         timeout (at most {max_secs} s) or a narrower command."
    );
    for (name, output) in [("stdout", stdout), ("stderr", stderr)] {
        if !output.trim().is_empty() {
            text.push_str(&format!("\n{name} so far:\n{output}"));
        }
    }
    text
}

/// `run_shell` failed because the program ran out of memory under its limit.
pub(crate) fn over_memory_limit(program: &str, mib: u64, stdout: &str, stderr: &str) -> String {
    let mut text = format!(
        "Error: {program} was stopped: it went over the {mib} MiB memory limit of run_shell (a \
         memory allocation failed), so it may have done only part of its work. Run it on less \
         input (a smaller file, fewer lines: head -n, grep first) or with options that need \
         less memory."
    );
    for (name, output) in [("stdout", stdout), ("stderr", stderr)] {
        if !output.trim().is_empty() {
            text.push_str(&format!("\n{name} so far:\n{output}"));
        }
    }
    text
}

/// `get_system_info` could not run.
pub(crate) fn system_info_failed(error: &dyn std::fmt::Display) -> String {
    format!("Error: system information could not be read: {error}. Please retry.")
}

// ---- configuration (operator-facing) ----------------------------------------------------------

/// Options are neither null nor an object.
pub(crate) fn options_not_object(value: &serde_json::Value) -> String {
    format!(
        "shell server options must be null or an object like {{\"allow\": [\"git\"]}}; got {value}"
    )
}

/// An unknown key in the options.
pub(crate) fn options_unknown_key(key: &str) -> String {
    format!(
        "unknown key '{key}' in shell server options; expected keys: allow, memory_mib, max_processes"
    )
}

/// A limit option is not a whole number of at least `min`.
pub(crate) fn options_bad_limit(key: &str, value: &serde_json::Value, min: u64) -> String {
    format!("'{key}' in shell server options must be a whole number of at least {min}; got {value}")
}

/// `allow` is not a list.
pub(crate) fn options_allow_not_list(value: &serde_json::Value) -> String {
    format!(
        "'allow' in shell server options must be a list of program names like [\"git\", \"make\"]; got {value}"
    )
}

/// An `allow` entry is not a usable program name.
pub(crate) fn options_bad_program(entry: &serde_json::Value) -> String {
    format!(
        "'allow' entry {entry} in shell server options must be a bare program name: a non-empty \
         string without '/' or whitespace (it is looked up on PATH)"
    )
}
