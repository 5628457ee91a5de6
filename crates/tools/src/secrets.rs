//! deft's secrets and what keeps them from the programs it starts: which environment variables
//! hold one ([`is_secret_var`]), the scrubbed environment every child gets ([`scrub_env`], the one
//! call at each spawn site), which command-line flags carry one ([`SECRET_FLAGS`]), and the values
//! a tool's output must never show ([`values`]).
//!
//! Tool servers and the programs they start (a shell command, an app, Chromium, LibreOffice, a
//! stdio MCP server) act for a model that may be steered by what it reads on a screen, so none of
//! them inherits the model's API key, deft's tokens, the admin password or a database URL. A
//! variable a child really needs is given to it by name (the routing table's `env:` of a stdio
//! server), after the scrub.

use std::ffi::OsStr;
use std::process::Command;

use parking_lot::Mutex;

/// The variables deft itself reads a secret from.
pub const SECRET_VARS: &[&str] = &[
    "AGENT_API_KEY",
    "DEFT_API_TOKEN",
    "DEFT_DEVICE_TOKEN",
    "DEFT_MCP_TOKEN",
    "DEFT_ADMIN_PASSWORD",
    "DATABASE_URL",
];

/// Name endings that mark a secret, whoever set it (`OPENAI_API_KEY`, `GITHUB_TOKEN`,
/// `DEFT_TEST_DATABASE_URL`: a database URL may hold a password).
const SECRET_ENDINGS: &[&str] = &["API_KEY", "_TOKEN", "DATABASE_URL"];

/// Name parts that mark a secret anywhere in the name (`PGPASSWORD`, `AWS_SECRET_ACCESS_KEY`).
const SECRET_PARTS: &[&str] = &["PASSWORD", "PASSWD", "SECRET"];

/// deft's command-line flags whose value is a secret, with the variable that gives it instead. A
/// value given as a flag is visible to every process on the machine (`ps`), so the CLI warns
/// about it and [`values`] lists it.
pub const SECRET_FLAGS: &[(&str, &str)] = &[
    (
        "--token",
        "DEFT_DEVICE_TOKEN (deft client) or DEFT_MCP_TOKEN (deft mcp)",
    ),
    ("--api-token", "DEFT_API_TOKEN"),
    ("--device-token", "DEFT_DEVICE_TOKEN"),
    ("--api-key", "AGENT_API_KEY"),
    ("--admin-password", "DEFT_ADMIN_PASSWORD"),
    ("--database-url", "DATABASE_URL"),
];

fn secret_flag(word: &str) -> Option<(&'static str, &'static str)> {
    SECRET_FLAGS.iter().copied().find(|(flag, _)| *flag == word)
}

/// Values shorter than this are not hidden from output: hiding `"1"` everywhere would garble it,
/// and no key or token is that short.
const MIN_HIDDEN_LEN: usize = 6;

/// Secrets this process learnt other than from its environment or command line (a token read
/// from the data folder or generated), see [`remember`].
static REMEMBERED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Whether the environment variable `name` holds a secret: one of [`SECRET_VARS`], or a name
/// ending in `API_KEY`, `_TOKEN` or `DATABASE_URL`, or containing `PASSWORD`, `PASSWD` or
/// `SECRET` (case-insensitive).
pub fn is_secret_var(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_VARS.contains(&upper.as_str())
        || upper == "TOKEN"
        || SECRET_ENDINGS.iter().any(|end| upper.ends_with(end))
        || SECRET_PARTS.iter().any(|part| upper.contains(part))
}

fn is_secret_os(name: &OsStr) -> bool {
    name.to_str().is_some_and(is_secret_var)
}

/// Removes every secret variable of this process's environment from what `cmd` passes on, and
/// returns `cmd`. Call it before giving the child the variables it needs: a variable set on `cmd`
/// afterwards is kept. For a `tokio::process::Command`, pass `cmd.as_std_mut()`.
pub fn scrub_env(cmd: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        if is_secret_os(&name) {
            cmd.env_remove(&name);
        }
    }
    cmd
}

/// Adds `value` to the secrets [`values`] lists: one this process holds that is neither in its
/// environment nor on its command line (a token kept in the data folder, a generated one).
pub fn remember(value: &str) {
    let value = value.trim();
    if value.len() < MIN_HIDDEN_LEN {
        return;
    }
    let mut remembered = REMEMBERED.lock();
    if !remembered.iter().any(|v| v == value) {
        remembered.push(value.to_owned());
    }
}

/// Every secret this process knows, longest first (so a tool's output is cleaned of the longest
/// match first): its secret variables' values, the values of [`SECRET_FLAGS`] on its command line,
/// the passwords inside database URLs among them, and what was [`remember`]ed.
pub fn values() -> Vec<String> {
    let from_env = std::env::vars_os()
        .filter(|(name, _)| is_secret_os(name))
        .filter_map(|(_, value)| value.into_string().ok());
    let args: Vec<String> = std::env::args_os()
        .filter_map(|a| a.into_string().ok())
        .collect();
    let mut all: Vec<String> = from_env
        .chain(flag_values(&args))
        .chain(REMEMBERED.lock().iter().cloned())
        .collect();
    let passwords: Vec<String> = all.iter().filter_map(|v| url_password(v)).collect();
    all.extend(passwords);
    all.retain(|v| v.len() >= MIN_HIDDEN_LEN);
    all.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    all.dedup();
    all
}

/// The values `args` gives to [`SECRET_FLAGS`], as `--flag value` or `--flag=value`.
pub fn flag_values(args: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if let Some((flag, value)) = word.split_once('=') {
            if secret_flag(flag).is_some() {
                found.push(value.to_owned());
            }
        } else if secret_flag(word).is_some()
            && let Some(value) = words.next()
        {
            found.push(value.clone());
        }
    }
    found
}

/// The secret flags `args` uses (each once, in order) with their variables, for a warning.
pub fn flags_given(args: &[String]) -> Vec<(&'static str, &'static str)> {
    let mut given = Vec::new();
    for word in args {
        let flag = word.split_once('=').map_or(word.as_str(), |(flag, _)| flag);
        if let Some(known) = secret_flag(flag)
            && !given.contains(&known)
        {
            given.push(known);
        }
    }
    given
}

/// The password of a `scheme://user:password@host…` URL.
fn url_password(url: &str) -> Option<String> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let (userinfo, _) = authority.rsplit_once('@')?;
    let (_, password) = userinfo.split_once(':')?;
    (!password.is_empty()).then(|| password.to_owned())
}

/// Replaces every occurrence of a secret in `text` with `[hidden]`; `secrets` as [`values`]
/// lists them (longest first). Returns whether anything was hidden.
pub fn hide_in(text: &mut String, secrets: &[String]) -> bool {
    let mut hidden = false;
    for secret in secrets.iter().filter(|s| s.len() >= MIN_HIDDEN_LEN) {
        if text.contains(secret.as_str()) {
            *text = text.replace(secret.as_str(), HIDDEN);
            hidden = true;
        }
    }
    hidden
}

/// What a hidden secret reads as.
pub const HIDDEN: &str = "[hidden]";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names_are_known_and_recognised_by_their_shape() {
        for name in SECRET_VARS {
            assert!(is_secret_var(name), "{name}");
        }
        for name in [
            "OPENAI_API_KEY",
            "api_key",
            "GITHUB_TOKEN",
            "TOKEN",
            "PGPASSWORD",
            "AWS_SECRET_ACCESS_KEY",
            "DEFT_TEST_DATABASE_URL",
            "my_passwd",
        ] {
            assert!(is_secret_var(name), "{name}");
        }
        for name in [
            "PATH",
            "HOME",
            "DISPLAY",
            "DBUS_SESSION_BUS_ADDRESS",
            "XAUTHORITY",
            "TOKENIZERS_PARALLELISM",
            "AGENT_API_BASE",
            "AGENT_MODEL",
            "DEFT_DATA_DIR",
        ] {
            assert!(!is_secret_var(name), "{name}");
        }
    }

    #[test]
    fn flag_values_are_found_in_both_forms() {
        let args: Vec<String> = [
            "deft",
            "client",
            "--server",
            "http://x",
            "--token",
            "device-secret",
            "--api-token=api-secret",
            "--id",
            "pc1",
            "--token",
        ]
        .map(str::to_owned)
        .into();
        assert_eq!(flag_values(&args), ["device-secret", "api-secret"]);
        let flags: Vec<&str> = flags_given(&args).into_iter().map(|(f, _)| f).collect();
        assert_eq!(flags, ["--token", "--api-token"]);
        assert!(flags_given(&["deft".to_owned(), "serve".to_owned()]).is_empty());
    }

    #[test]
    fn database_url_passwords_are_secrets_of_their_own() {
        assert_eq!(
            url_password("postgres://deft:s3cr3t-pw@db:5432/deft").as_deref(),
            Some("s3cr3t-pw")
        );
        assert_eq!(url_password("postgres://db/deft"), None);
        assert_eq!(url_password("sqlite:///x.db"), None);
        assert_eq!(url_password("postgres://user:@db/x"), None);
    }

    /// Set in the environment of the copy of this test binary that
    /// [`a_child_gets_none_of_the_secrets_of_its_parent`] starts.
    const INNER: &str = "DEFT_SCRUB_TEST_INNER";

    /// A test process cannot change its own environment (unsafe since edition 2024), so this
    /// runs [`inner_child_environment_is_scrubbed`] in a copy of the test binary started with
    /// secrets in its environment.
    #[test]
    fn a_child_gets_none_of_the_secrets_of_its_parent() {
        let exe = std::env::current_exe().expect("test binary");
        let out = Command::new(exe)
            .args([
                "secrets::tests::inner_child_environment_is_scrubbed",
                "--exact",
                "--nocapture",
            ])
            .env(INNER, "1")
            .env("AGENT_API_KEY", "sk-inner-model-key")
            .env("SOME_SERVICE_TOKEN", "inner-service-token")
            .env("PGPASSWORD", "inner-pg-password")
            .output()
            .expect("run the inner test");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "inner test: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn inner_child_environment_is_scrubbed() {
        if std::env::var_os(INNER).is_none() {
            return; // only meaningful in the copy started above
        }
        let mut cmd = Command::new("env");
        scrub_env(&mut cmd).env("GIVEN_TOKEN", "given-after-the-scrub");
        let out = cmd.output().expect("env runs");
        let env = String::from_utf8_lossy(&out.stdout);
        assert!(
            env.contains(&format!("{INNER}=1")),
            "the rest is kept: {env}"
        );
        assert!(env.contains("GIVEN_TOKEN=given-after-the-scrub"), "{env}");
        for secret in [
            "sk-inner-model-key",
            "inner-service-token",
            "inner-pg-password",
        ] {
            assert!(!env.contains(secret), "{secret} reached the child: {env}");
        }
        assert!(values().contains(&"sk-inner-model-key".to_owned()));
    }

    #[test]
    fn remembered_values_are_listed_longest_first_and_hidden() {
        remember("short");
        remember("remembered-token-123");
        remember("remembered-token-123456");
        let all = values();
        assert!(!all.iter().any(|v| v == "short"), "too short to hide");
        let long = all
            .iter()
            .position(|v| v == "remembered-token-123456")
            .expect("listed");
        let short = all
            .iter()
            .position(|v| v == "remembered-token-123")
            .expect("listed");
        assert!(long < short, "longest first: {all:?}");
        let mut text = "a remembered-token-123456 b remembered-token-123 c".to_owned();
        assert!(hide_in(&mut text, &all));
        assert_eq!(text, "a [hidden] b [hidden] c");
        let mut clean = "nothing here".to_owned();
        assert!(!hide_in(&mut clean, &all));
    }
}
