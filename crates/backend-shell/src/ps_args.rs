//! `ps` without its `e` modifier, which prints every process's environment (deft's secrets
//! among them).
//!
//! procps reads a word without a dash as BSD options (`aux`, `axe`) and a word with one as
//! SysV options (`-ef`), and when that first reading fails it reads every word again as BSD
//! options, so `-e` ("all processes" in SysV) becomes `e` ("environment"): `ps -ex` fails the
//! first reading (SysV has no `x`) and succeeds the second. So:
//!
//! - a BSD word's `e` is refused (`ps e`, `ps auxe`), up to the letter that takes a value
//!   (`o`, `O`, `p`, `q`, `t`, `U`, `k`): the rest is that value;
//! - a SysV word's `e` becomes `A`, which means the same there ("all processes") and is no BSD
//!   option at all, so the second reading fails and never shows an environment;
//! - a SysV value that the BSD reading takes as options (after `-g`, `-s`, `-u`, which are BSD
//!   flags) is read as BSD options too, and its `e` refused.
//!
//! GNU long options (`--format`, `--sort`, …) are read alike both times; none shows an
//! environment.

/// SysV letters that take a value (the rest of the word, or the next word).
const SYSV_VALUE: &str = "CDGOUgopqstu";
/// SysV value letters that the BSD reading takes as flags, so it reads their value as options.
const SYSV_VALUE_BSD_FLAG: &str = "gsu";
/// BSD letters that take a value (the rest of the word, or the next word).
const BSD_VALUE: &str = "OUkopqt";
/// GNU long options that take a value (`--format x`); abbreviations are not accepted by ps.
const LONG_VALUE: &[&str] = &[
    "Group",
    "User",
    "cols",
    "columns",
    "date-format",
    "delimiter",
    "format",
    "group",
    "lines",
    "pid",
    "ppid",
    "quick-pid",
    "rows",
    "sid",
    "sort",
    "tty",
    "user",
    "width",
];

/// What the next word is to the two readings.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Options, as usual.
    Options,
    /// A value in both readings: not options.
    Value,
    /// A value to the SysV reading, options to the BSD one.
    BsdOptions,
}

/// `args` with each SysV `e` turned into `A`, or the word whose BSD `e` shows environments.
pub(crate) fn without_environment(args: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(args.len());
    let mut next = Next::Options;
    for word in args {
        let this = std::mem::replace(&mut next, Next::Options);
        if this == Next::Value {
            out.push(word.clone());
            continue;
        }
        if this == Next::BsdOptions && bsd_shows_environment(word) {
            return Err(word.clone());
        }
        if let Some(long) = word.strip_prefix("--") {
            let name = long.split(['=', ':']).next().unwrap_or("");
            if long.len() == name.len() && LONG_VALUE.contains(&name) {
                next = Next::Value;
            }
            out.push(word.clone());
        } else if let Some(cluster) = word.strip_prefix('-').filter(|c| starts_alpha(c)) {
            let (rewritten, after) = sysv(cluster)?;
            next = after;
            out.push(format!("-{rewritten}"));
        } else if starts_alpha(word) {
            if this != Next::BsdOptions && bsd_shows_environment(word) {
                return Err(word.clone());
            }
            if bsd_value_at_end(word) {
                next = Next::Value;
            }
            out.push(word.clone());
        } else {
            out.push(word.clone());
        }
    }
    Ok(out)
}

fn starts_alpha(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// A SysV cluster (without its dash) with its option `e`s as `A`, and what its last letter makes
/// of the next word. Refuses (with the whole word) a value the BSD reading would take as options
/// that show environments.
fn sysv(cluster: &str) -> Result<(String, Next), String> {
    let mut out = String::with_capacity(cluster.len());
    for (at, letter) in cluster.char_indices() {
        if !SYSV_VALUE.contains(letter) {
            out.push(if letter == 'e' { 'A' } else { letter });
            continue;
        }
        out.push(letter);
        let rest = &cluster[at + letter.len_utf8()..];
        out.push_str(rest);
        let bsd_flag = SYSV_VALUE_BSD_FLAG.contains(letter);
        if bsd_flag && bsd_shows_environment(rest) {
            return Err(format!("-{cluster}"));
        }
        let next = match (rest.is_empty(), bsd_flag) {
            (false, _) => Next::Options,
            (true, true) => Next::BsdOptions,
            (true, false) => Next::Value,
        };
        return Ok((out, next));
    }
    Ok((out, Next::Options))
}

/// Whether BSD options `word` include `e` before a value-taking letter or a process id.
fn bsd_shows_environment(word: &str) -> bool {
    for letter in word.chars() {
        if letter == 'e' {
            return true;
        }
        if BSD_VALUE.contains(letter) || letter.is_ascii_digit() {
            return false;
        }
    }
    false
}

/// Whether BSD options `word` end with a value-taking letter, whose value is the next word.
fn bsd_value_at_end(word: &str) -> bool {
    for (at, letter) in word.char_indices() {
        if BSD_VALUE.contains(letter) || letter.is_ascii_digit() {
            return at + letter.len_utf8() == word.len() && !letter.is_ascii_digit();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Vec<String>, String> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        without_environment(&args)
    }

    #[test]
    fn bsd_e_is_refused() {
        for args in [
            &["e"][..],
            &["auxe"],
            &["aux", "e"],
            &["axeww"],
            &["-o", "pid,args", "e"],
            &["--sort", "pid", "aex"],
            &["-u", "user"],
            &["-ue"],
            &["-gsee"],
            &["x", "-s", "e"],
        ] {
            assert!(run(args).is_err(), "{args:?}");
        }
    }

    #[test]
    fn sysv_e_means_all_processes_and_is_kept_so() {
        assert_eq!(run(&["-ef"]).expect("allowed"), ["-Af"]);
        assert_eq!(
            run(&["-e", "-o", "pid,args"]).expect("allowed"),
            ["-A", "-o", "pid,args"]
        );
        assert_eq!(
            run(&["-eo", "pid,etime"]).expect("allowed"),
            ["-Ao", "pid,etime"]
        );
        assert_eq!(run(&["-ex"]).expect("allowed"), ["-Ax"]);
        // An `e` inside a value stays: it is a format or a list.
        assert_eq!(run(&["-opid,user"]).expect("allowed"), ["-opid,user"]);
        assert_eq!(run(&["aux"]).expect("allowed"), ["aux"]);
        assert_eq!(
            run(&["axo", "pid,user,args"]).expect("allowed"),
            ["axo", "pid,user,args"]
        );
        assert_eq!(
            run(&["--format", "user,etime", "-p", "1"]).expect("allowed"),
            ["--format", "user,etime", "-p", "1"]
        );
        assert_eq!(run(&["-u", "root"]).expect("allowed"), ["-u", "root"]);
        assert_eq!(run(&["-C", "chrome"]).expect("allowed"), ["-C", "chrome"]);
        assert_eq!(run(&["1234"]).expect("allowed"), ["1234"]);
    }
}
