//! What `run_shell` may run: the dangerous-pattern scan, POSIX word splitting, the program
//! allow-list and each program's argument rules.
//!
//! The checks run in a fixed order — empty command, dangerous patterns in the raw text, splitting,
//! bare program name, allow-list, arguments — and the first failure is the [`Refusal`]. The
//! per-program rules are data ([`ArgRule`]), not code paths.

use std::fmt;

use serde_json::Value;

use crate::getopt::{self, Word};
use crate::limits::{DEFAULT_MAX_PROCESSES, DEFAULT_MEMORY_MIB};
use crate::option_rules::{Operands, OptionRules};
use crate::{ps_args, texts};

/// Substrings refused anywhere in the raw command: shell syntax that would chain, pipe, redirect
/// or substitute if a shell ever saw the text, control characters, and bash's network devices.
/// Multi-character patterns come first so the refusal names the most specific one.
const DANGEROUS_PATTERNS: &[&str] = &[
    "/dev/tcp/",
    "/dev/udp/",
    "$(",
    "${",
    ";",
    "|",
    "&",
    "`",
    ">",
    "<",
    "\n",
    "\r",
    "\0",
];

/// Which arguments a program accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgRule {
    /// Any arguments.
    Any,
    /// Any arguments except these exact words (`find`'s action primaries).
    DenyTokens {
        /// The refused words.
        tokens: &'static [&'static str],
        /// Why, for the refusal text.
        why: &'static str,
    },
    /// Exactly one argument, one of these.
    ExactlyOne {
        /// The accepted arguments.
        one_of: &'static [&'static str],
        /// Why, for the refusal text.
        why: &'static str,
    },
    /// No arguments, or only these flags, each as its own argument.
    OnlyFlags {
        /// The accepted flags.
        flags: &'static [&'static str],
        /// Why, for the refusal text.
        why: &'static str,
    },
    /// GNU `getopt_long` options with some refused, and a rule for the operands.
    Options(&'static OptionRules),
    /// `ps` without its `e` modifier (`ps_args`); its SysV `-e` ("all processes") is run as the
    /// equivalent `-A`.
    Ps {
        /// Why, for the refusal text.
        why: &'static str,
    },
}

const FIND_ACTIONS: &[&str] = &[
    "-exec", "-execdir", "-delete", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls",
];

const VERSION_ONLY: &[&str] = &["--version", "-V"];

const HOSTNAME_QUERIES: &[&str] = &[
    "-f",
    "-s",
    "-i",
    "-I",
    "-d",
    "--fqdn",
    "--short",
    "--domain",
    "--ip-address",
    "--all-ip-addresses",
];

static SORT: OptionRules = OptionRules {
    denied_short: "o",
    denied_long: &["output", "compress-program"],
    short_with_value: "ktST",
    short_optional_value: "",
    long_with_value: &[
        "batch-size",
        "buffer-size",
        "compress-program",
        "field-separator",
        "files0-from",
        "key",
        "output",
        "parallel",
        "random-source",
        "sort",
        "temporary-directory",
    ],
    long_flags: &[
        "check",
        "debug",
        "dictionary-order",
        "general-numeric-sort",
        "help",
        "human-numeric-sort",
        "ignore-case",
        "ignore-leading-blanks",
        "ignore-nonprinting",
        "merge",
        "month-sort",
        "numeric-sort",
        "random-sort",
        "reverse",
        "stable",
        "unique",
        "version",
        "version-sort",
        "zero-terminated",
    ],
    operands: Operands::Any,
    why: texts::WHY_SORT,
};

static DATE: OptionRules = OptionRules {
    denied_short: "s",
    denied_long: &["set"],
    short_with_value: "dfrs",
    short_optional_value: "I",
    long_with_value: &["date", "file", "reference", "rfc-3339", "set"],
    long_flags: &[
        "debug",
        "help",
        "iso-8601",
        "resolution",
        "rfc-email",
        "universal",
        "utc",
        "version",
    ],
    operands: Operands::PlusFormat,
    why: texts::WHY_DATE,
};

static UNIQ: OptionRules = OptionRules {
    denied_short: "",
    denied_long: &[],
    short_with_value: "fsw",
    short_optional_value: "",
    long_with_value: &["check-chars", "skip-chars", "skip-fields"],
    long_flags: &[
        "all-repeated",
        "count",
        "group",
        "help",
        "ignore-case",
        "repeated",
        "unique",
        "version",
        "zero-terminated",
    ],
    operands: Operands::AtMost(1),
    why: texts::WHY_UNIQ,
};

static FILE: OptionRules = OptionRules {
    denied_short: "C",
    denied_long: &["compile"],
    short_with_value: "efFmP",
    short_optional_value: "",
    long_with_value: &[
        "exclude",
        "exclude-quiet",
        "files-from",
        "magic-file",
        "parameter",
        "separator",
    ],
    long_flags: &[
        "apple",
        "brief",
        "checking-printout",
        "compile",
        "debug",
        "dereference",
        "extension",
        "help",
        "keep-going",
        "list",
        "mime",
        "mime-encoding",
        "mime-type",
        "no-buffer",
        "no-dereference",
        "no-pad",
        "no-sandbox",
        "preserve-date",
        "print0",
        "raw",
        "special-files",
        "uncompress",
        "uncompress-noreport",
        "version",
    ],
    operands: Operands::Any,
    why: texts::WHY_FILE,
};

/// The default allow-list: read-only inspection programs, as UFO's Linux server has them.
///
/// UFO's network tools (`ping`, `traceroute`, `nslookup`, `dig`, `host`) are left out on purpose:
/// they inspect the network, not this device, and deft's machines have no network to inspect.
/// Programs that could write files, run code or change the system through an argument carry an
/// [`ArgRule`] that closes that door (`uniq`'s output operand and `file -C` included).
const DEFAULT_PROGRAMS: &[(&str, ArgRule)] = &[
    ("basename", ArgRule::Any),
    ("cal", ArgRule::Any),
    ("cat", ArgRule::Any),
    ("cut", ArgRule::Any),
    ("date", ArgRule::Options(&DATE)),
    ("df", ArgRule::Any),
    ("diff", ArgRule::Any),
    ("dirname", ArgRule::Any),
    ("du", ArgRule::Any),
    ("echo", ArgRule::Any),
    ("file", ArgRule::Options(&FILE)),
    (
        "find",
        ArgRule::DenyTokens {
            tokens: FIND_ACTIONS,
            why: texts::WHY_FIND,
        },
    ),
    ("free", ArgRule::Any),
    ("grep", ArgRule::Any),
    ("head", ArgRule::Any),
    (
        "hostname",
        ArgRule::OnlyFlags {
            flags: HOSTNAME_QUERIES,
            why: texts::WHY_HOSTNAME,
        },
    ),
    ("id", ArgRule::Any),
    ("ls", ArgRule::Any),
    ("md5sum", ArgRule::Any),
    ("ps", ArgRule::Ps { why: texts::WHY_PS }),
    ("pwd", ArgRule::Any),
    (
        "python",
        ArgRule::ExactlyOne {
            one_of: VERSION_ONLY,
            why: texts::WHY_PYTHON,
        },
    ),
    (
        "python3",
        ArgRule::ExactlyOne {
            one_of: VERSION_ONLY,
            why: texts::WHY_PYTHON,
        },
    ),
    ("realpath", ArgRule::Any),
    ("sha256sum", ArgRule::Any),
    ("sort", ArgRule::Options(&SORT)),
    ("stat", ArgRule::Any),
    ("tail", ArgRule::Any),
    ("test", ArgRule::Any),
    ("tr", ArgRule::Any),
    ("uname", ArgRule::Any),
    ("uniq", ArgRule::Options(&UNIQ)),
    ("uptime", ArgRule::Any),
    ("wc", ArgRule::Any),
    ("whereis", ArgRule::Any),
    ("which", ArgRule::Any),
    ("whoami", ArgRule::Any),
];

/// Why a command was refused. [`Refusal`] pairs it with the allow-list for the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefusalReason {
    /// The command is empty or only whitespace.
    Empty,
    /// The raw command contains a dangerous pattern (shown as found, e.g. `"|"` or `"\n"`).
    Pattern {
        /// The pattern.
        pattern: &'static str,
    },
    /// Quotes are unbalanced (or a backslash ends the text), so there is no argv.
    Unbalanced,
    /// The program is a path; only bare names are accepted.
    Path {
        /// The path as given.
        given: String,
        /// Its last component, the name to give instead.
        name: String,
    },
    /// The program is not on the allow-list.
    NotAllowed {
        /// The program as given.
        program: String,
    },
    /// The program is allowed but not with these arguments.
    Argument {
        /// The program.
        program: String,
        /// The offending argument, or `None` when the argument count is wrong.
        argument: Option<String>,
        /// The program's rule, to say what is allowed.
        rule: ArgRule,
    },
}

/// A refused command: the reason and the allow-list, displayed as the model-facing text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What was refused.
    pub reason: RefusalReason,
    /// The allowed programs, sorted, named in the message.
    pub allowed: Vec<String>,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let allowed = texts::allowed_programs(&self.allowed);
        let text = match &self.reason {
            RefusalReason::Empty => texts::refused_empty(&allowed),
            RefusalReason::Pattern { pattern } => texts::refused_pattern(pattern, &allowed),
            RefusalReason::Unbalanced => texts::refused_unbalanced(&allowed),
            RefusalReason::Path { given, name } => texts::refused_path(given, name, &allowed),
            RefusalReason::NotAllowed { program } => texts::refused_program(program, &allowed),
            RefusalReason::Argument {
                program,
                argument,
                rule,
            } => texts::refused_argument(program, argument.as_deref(), &rule.accepted(program)),
        };
        f.write_str(&text)
    }
}

impl ArgRule {
    /// One sentence saying which arguments `program` accepts under this rule.
    pub(crate) fn accepted(&self, program: &str) -> String {
        match self {
            ArgRule::Any => texts::accepts_any(program),
            ArgRule::DenyTokens { tokens, why } => texts::accepts_all_but(program, tokens, why),
            ArgRule::ExactlyOne { one_of, why } => texts::accepts_exactly_one(program, one_of, why),
            ArgRule::OnlyFlags { flags, why } => texts::accepts_only_flags(program, flags, why),
            ArgRule::Ps { why } => texts::accepts_ps(program, why),
            ArgRule::Options(rules) => texts::accepts_options(
                program,
                rules.denied().as_deref(),
                rules.operands.as_text(),
                rules.why,
            ),
        }
    }

    /// A compact limit for the tool description, or `None` when the program takes any
    /// arguments.
    pub(crate) fn summary(&self) -> Option<String> {
        match self {
            ArgRule::Any => None,
            ArgRule::Ps { .. } => Some(texts::LIMIT_PS.to_owned()),
            ArgRule::DenyTokens { tokens, .. } => Some(texts::limit_all_but(tokens)),
            ArgRule::ExactlyOne { one_of, .. } => Some(texts::limit_exactly_one(one_of)),
            ArgRule::OnlyFlags { flags, .. } => Some(texts::limit_only_flags(flags)),
            ArgRule::Options(rules) => Some(texts::limit_options(
                rules.denied().as_deref(),
                rules.operands.as_text(),
            )),
        }
    }
}

impl std::error::Error for Refusal {}

/// The allow-list, argument rules and resource limits `run_shell` enforces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellPolicy {
    /// Allowed programs, sorted by name, each with its argument rule.
    programs: Vec<(String, ArgRule)>,
    /// Programs the options added to the default list.
    added: Vec<String>,
    /// Memory one program may use, in MiB.
    memory_mib: u64,
    /// Processes and threads one program may add.
    max_processes: u64,
}

/// The smallest memory limit the options accept: below it common programs cannot even load.
const MIN_MEMORY_MIB: u64 = 64;

impl Default for ShellPolicy {
    /// The default allow-list of read-only inspection programs.
    fn default() -> Self {
        let mut programs: Vec<(String, ArgRule)> = DEFAULT_PROGRAMS
            .iter()
            .map(|(name, rule)| ((*name).to_owned(), *rule))
            .collect();
        programs.sort_by(|a, b| a.0.cmp(&b.0));
        Self {
            programs,
            added: Vec::new(),
            memory_mib: DEFAULT_MEMORY_MIB,
            max_processes: DEFAULT_MAX_PROCESSES,
        }
    }
}

impl ShellPolicy {
    /// Builds the policy from the server's options in the routing table: `null`, or an object
    /// `{"allow": ["git", "make"], "memory_mib": 2048, "max_processes": 256}` — `allow`'s
    /// programs join the default list with no argument limits; `memory_mib` (at least 64,
    /// default [`DEFAULT_MEMORY_MIB`]) and `max_processes` (at least 1, default
    /// [`DEFAULT_MAX_PROCESSES`]) limit each program.
    ///
    /// Unknown keys, non-string entries, names with `/` or whitespace and limits that are not
    /// such numbers are errors (for the operator, not the model). Programs already allowed are
    /// not counted as added.
    pub fn from_options(options: &Value) -> Result<ShellPolicy, String> {
        let mut policy = ShellPolicy::default();
        let object = match options {
            Value::Null => return Ok(policy),
            Value::Object(object) => object,
            other => return Err(texts::options_not_object(other)),
        };
        for (key, value) in object {
            match key.as_str() {
                "allow" => {}
                "memory_mib" => {
                    policy.memory_mib = limit_option(key, value, MIN_MEMORY_MIB)?;
                    continue;
                }
                "max_processes" => {
                    policy.max_processes = limit_option(key, value, 1)?;
                    continue;
                }
                _ => return Err(texts::options_unknown_key(key)),
            }
            let entries = match value {
                Value::Array(entries) => entries,
                Value::Null => continue,
                other => return Err(texts::options_allow_not_list(other)),
            };
            for entry in entries {
                let name = match entry.as_str() {
                    Some(name)
                        if !name.is_empty()
                            && !name.contains('/')
                            && !name.chars().any(char::is_whitespace) =>
                    {
                        name
                    }
                    _ => return Err(texts::options_bad_program(entry)),
                };
                if policy.rule(name).is_none() {
                    policy.programs.push((name.to_owned(), ArgRule::Any));
                    policy.added.push(name.to_owned());
                }
            }
        }
        policy.programs.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(policy)
    }

    /// Memory one program may use, in MiB.
    pub fn memory_mib(&self) -> u64 {
        self.memory_mib
    }

    /// Processes and threads one program may add to those its user has.
    pub fn max_processes(&self) -> u64 {
        self.max_processes
    }

    /// The programs the options added beyond the default list. The caller warns about them, so
    /// nothing widens the list silently.
    pub fn added(&self) -> &[String] {
        &self.added
    }

    /// The allowed program names, sorted.
    pub fn programs(&self) -> Vec<&str> {
        self.programs
            .iter()
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// The allowed programs with their argument rules, sorted by name.
    pub fn rules(&self) -> Vec<(&str, ArgRule)> {
        self.programs
            .iter()
            .map(|(name, rule)| (name.as_str(), *rule))
            .collect()
    }

    fn rule(&self, program: &str) -> Option<ArgRule> {
        self.programs
            .iter()
            .find(|(name, _)| name == program)
            .map(|(_, rule)| *rule)
    }

    /// Checks a command and returns its argv (the program's bare name first), or the refusal.
    pub fn check(&self, command: &str) -> Result<Vec<String>, Refusal> {
        self.check_reason(command).map_err(|reason| Refusal {
            reason,
            allowed: self.programs().into_iter().map(str::to_owned).collect(),
        })
    }

    fn check_reason(&self, command: &str) -> Result<Vec<String>, RefusalReason> {
        if command.trim().is_empty() {
            return Err(RefusalReason::Empty);
        }
        if let Some(pattern) = DANGEROUS_PATTERNS
            .iter()
            .copied()
            .find(|p| command.contains(p))
        {
            return Err(RefusalReason::Pattern { pattern });
        }
        let argv = shlex::split(command).ok_or(RefusalReason::Unbalanced)?;
        let Some((program, args)) = argv.split_first() else {
            // Only a comment (`# …`) was left after splitting.
            return Err(RefusalReason::Empty);
        };
        if program.contains('/') {
            let name = program
                .rsplit('/')
                .find(|part| !part.is_empty())
                .unwrap_or("");
            return Err(RefusalReason::Path {
                given: program.clone(),
                name: name.to_owned(),
            });
        }
        let rule = self
            .rule(program)
            .ok_or_else(|| RefusalReason::NotAllowed {
                program: program.clone(),
            })?;
        let rewritten =
            check_arguments(rule, args).map_err(|argument| RefusalReason::Argument {
                program: program.clone(),
                argument,
                rule,
            })?;
        Ok(match rewritten {
            Some(args) => std::iter::once(program.clone()).chain(args).collect(),
            None => argv,
        })
    }
}

/// A limit option: a whole number of at least `min`.
fn limit_option(key: &str, value: &Value, min: u64) -> Result<u64, String> {
    value
        .as_u64()
        .filter(|n| *n >= min)
        .ok_or_else(|| texts::options_bad_limit(key, value, min))
}

/// Applies `rule` to `args`: `Ok(Some(args))` when the rule runs them in another (equivalent)
/// form; the error is the offending argument, or `None` for a wrong count.
fn check_arguments(rule: ArgRule, args: &[String]) -> Result<Option<Vec<String>>, Option<String>> {
    if let ArgRule::Ps { .. } = rule {
        return ps_args::without_environment(args).map(Some).map_err(Some);
    }
    check_unchanged(rule, args).map(|()| None)
}

/// Applies a rule that runs the arguments as given.
fn check_unchanged(rule: ArgRule, args: &[String]) -> Result<(), Option<String>> {
    match rule {
        ArgRule::Any | ArgRule::Ps { .. } => Ok(()),
        ArgRule::DenyTokens { tokens, .. } => {
            match args.iter().find(|a| tokens.contains(&a.as_str())) {
                Some(arg) => Err(Some(arg.clone())),
                None => Ok(()),
            }
        }
        ArgRule::ExactlyOne { one_of, .. } => {
            match args.iter().find(|a| !one_of.contains(&a.as_str())) {
                Some(arg) => Err(Some(arg.clone())),
                None if args.len() == 1 => Ok(()),
                None => Err(None),
            }
        }
        ArgRule::OnlyFlags { flags, .. } => {
            match args.iter().find(|a| !flags.contains(&a.as_str())) {
                Some(arg) => Err(Some(arg.clone())),
                None => Ok(()),
            }
        }
        ArgRule::Options(rules) => check_options(rules, args).map_err(Some),
    }
}

/// Scans `args` as `getopt_long` would and applies `rules`; the error is the offending argument.
fn check_options(rules: &OptionRules, args: &[String]) -> Result<(), String> {
    let mut operands = 0usize;
    for word in getopt::words(rules, args) {
        match word {
            Word::Operand(word) => {
                operands += 1;
                let fits = match rules.operands {
                    Operands::Any => true,
                    Operands::PlusFormat => word.starts_with('+'),
                    Operands::AtMost(max) => operands <= max,
                };
                if !fits {
                    return Err(word.to_owned());
                }
            }
            Word::Long { word, name } => {
                // A refused option's abbreviation is refused too.
                if rules
                    .denied_long
                    .iter()
                    .any(|denied| denied.starts_with(name))
                {
                    return Err(word.to_owned());
                }
            }
            Word::Short { word, letter } => {
                if rules.denied_short.contains(letter) {
                    return Err(word.to_owned());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(command: &str) -> RefusalReason {
        match ShellPolicy::default().check(command) {
            Ok(argv) => panic!("{command:?} was allowed as {argv:?}"),
            Err(refusal) => refusal.reason,
        }
    }

    fn allowed(command: &str) -> Vec<String> {
        match ShellPolicy::default().check(command) {
            Ok(argv) => argv,
            Err(refusal) => panic!("{command:?} was refused: {refusal}"),
        }
    }

    #[test]
    fn splits_like_a_posix_shell() {
        assert_eq!(
            allowed(r#"grep -rn "two words" 'a b' c\ d"#),
            ["grep", "-rn", "two words", "a b", "c d"]
        );
        assert_eq!(reason("echo 'open"), RefusalReason::Unbalanced);
        assert_eq!(reason("   \t "), RefusalReason::Empty);
    }

    #[test]
    fn every_dangerous_pattern_is_refused_before_splitting() {
        for pattern in DANGEROUS_PATTERNS {
            let command = format!("echo a{pattern}b");
            assert_eq!(
                reason(&command),
                RefusalReason::Pattern { pattern },
                "{command:?}"
            );
        }
        // Inside quotes too: the scan is on the raw text.
        assert_eq!(
            reason("echo 'a|b'"),
            RefusalReason::Pattern { pattern: "|" }
        );
    }

    #[test]
    fn program_must_be_a_bare_allowed_name() {
        assert_eq!(
            reason("/bin/ls -l"),
            RefusalReason::Path {
                given: "/bin/ls".into(),
                name: "ls".into()
            }
        );
        assert_eq!(
            reason("rm -rf x"),
            RefusalReason::NotAllowed {
                program: "rm".into()
            }
        );
        assert_eq!(
            reason("LS"),
            RefusalReason::NotAllowed {
                program: "LS".into()
            }
        );
    }

    #[test]
    fn find_actions_are_refused() {
        for action in FIND_ACTIONS {
            assert!(matches!(
                reason(&format!("find . -name x {action}")),
                RefusalReason::Argument { .. }
            ));
        }
        allowed("find / -name x -type f -print");
    }

    #[test]
    fn python_only_prints_its_version() {
        allowed("python3 --version");
        allowed("python -V");
        assert!(
            matches!(reason("python3 -c print(1)"), RefusalReason::Argument { argument: Some(a), .. } if a == "-c")
        );
        assert!(matches!(
            reason("python3"),
            RefusalReason::Argument { argument: None, .. }
        ));
        assert!(matches!(
            reason("python3 --version -V"),
            RefusalReason::Argument { argument: None, .. }
        ));
    }

    #[test]
    fn sort_may_not_write_or_run_programs() {
        for command in [
            "sort -o out in",
            "sort -oout in",
            "sort -nro out in",
            "sort --output=out in",
            "sort --output out in",
            "sort --out=out in",
            "sort --compress-program=sh in",
            "sort --comp sh in",
        ] {
            assert!(
                matches!(reason(command), RefusalReason::Argument { .. }),
                "{command}"
            );
        }
        allowed("sort -n -k 2 -t , file");
        allowed("sort -to file"); // 'o' is the value of -t here
        allowed("sort -r -- -o"); // a file named -o
    }

    #[test]
    fn date_may_not_set_the_clock() {
        for command in [
            "date -s 2020-01-01",
            "date --set=now",
            "date --se now",
            "date -us now",
            "date 010112002030",
        ] {
            assert!(
                matches!(reason(command), RefusalReason::Argument { .. }),
                "{command}"
            );
        }
        allowed("date");
        allowed("date -u +%s");
        allowed("date -d yesterday +%F");
        allowed("date --date 2020-01-01 -Iseconds");
    }

    #[test]
    fn hostname_may_only_print() {
        allowed("hostname");
        allowed("hostname -f");
        allowed("hostname --all-ip-addresses");
        assert!(matches!(
            reason("hostname evil"),
            RefusalReason::Argument { .. }
        ));
        assert!(matches!(
            reason("hostname -F /etc/x"),
            RefusalReason::Argument { .. }
        ));
    }

    #[test]
    fn uniq_and_file_may_not_write() {
        allowed("uniq -c in");
        allowed("uniq -f 2 in");
        assert!(
            matches!(reason("uniq in out"), RefusalReason::Argument { argument: Some(a), .. } if a == "out")
        );
        allowed("file -b /bin/ls");
        assert!(matches!(
            reason("file -C -m x"),
            RefusalReason::Argument { .. }
        ));
        assert!(matches!(
            reason("file --comp"),
            RefusalReason::Argument { .. }
        ));
    }

    #[test]
    fn options_widen_the_list_visibly() {
        let policy =
            ShellPolicy::from_options(&serde_json::json!({"allow": ["git", "ls", "make"]}))
                .expect("valid options");
        assert_eq!(policy.added(), ["git", "make"]);
        assert!(policy.check("git status").is_ok());
        assert!(
            ShellPolicy::from_options(&Value::Null)
                .expect("null")
                .added()
                .is_empty()
        );

        let err = ShellPolicy::from_options(&serde_json::json!({"alow": []})).expect_err("typo");
        assert!(
            err.contains("'alow'") && err.contains("expected keys: allow"),
            "{err}"
        );
        for bad in [
            serde_json::json!(["/usr/bin/git"]),
            serde_json::json!(["my tool"]),
            serde_json::json!([""]),
            serde_json::json!([1]),
        ] {
            let err = ShellPolicy::from_options(&serde_json::json!({ "allow": bad }))
                .expect_err("bad name");
            assert!(err.contains("bare program name"), "{err}");
        }
        assert!(ShellPolicy::from_options(&serde_json::json!({"allow": "git"})).is_err());
        assert!(ShellPolicy::from_options(&serde_json::json!([])).is_err());
    }
}
