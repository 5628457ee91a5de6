//! Transports to out-of-process tool servers: stdio children (own process group, killed with
//! the whole group when the connection drops) and streamable HTTP.

use std::collections::{BTreeMap, HashMap};
use std::process::Stdio;

use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use tokio::io::AsyncBufReadExt;

/// Starts `command args…` as an MCP stdio server in a process group of its own, with the
/// environment of the device it works for when that has one (`device_env`, else deft's own,
/// scrubbed), and `env` on top. Its stderr lines go to the log at debug level, tagged with the
/// namespace.
pub(crate) fn spawn_stdio(
    namespace: &str,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&str>,
    device_env: Option<&[(String, String)]>,
) -> Result<TokioChildProcess, String> {
    let mut cmd = tokio::process::Command::new(command);
    match device_env {
        Some(device) => crate::device_env::apply(cmd.as_std_mut(), device),
        None => crate::secrets::scrub_env(cmd.as_std_mut()),
    };
    cmd.args(args).envs(env);
    if let Some(dir) = cwd {
        if !std::path::Path::new(dir).is_dir() {
            return Err(format!(
                "tool server '{namespace}' cannot start: its cwd '{dir}' is not a directory"
            ));
        }
        cmd.current_dir(dir);
    }
    let mut wrapped = CommandWrap::from(cmd);
    wrapped.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
    let (child, stderr) = TokioChildProcess::builder(wrapped)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!("tool server '{namespace}' cannot start: program '{command}' was not found")
            } else {
                format!("tool server '{namespace}' cannot start '{command}': {e}")
            }
        })?;
    if let Some(stderr) = stderr {
        let ns = namespace.to_owned();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %ns, "stderr: {line}");
            }
        });
    }
    Ok(child)
}

/// A streamable-HTTP client transport for `url` with extra `headers`
/// (`Authorization: Bearer …` is passed as the auth header).
pub(crate) fn http_transport(
    namespace: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    let mut custom = HashMap::new();
    for (name, value) in headers {
        if name.eq_ignore_ascii_case("authorization") {
            let token = value.strip_prefix("Bearer ").unwrap_or(value);
            config = config.auth_header(token.to_owned());
            continue;
        }
        let header = http::HeaderName::try_from(name.as_str()).map_err(|e| {
            format!("tool server '{namespace}': header name '{name}' is invalid: {e}")
        })?;
        let value = http::HeaderValue::try_from(value.as_str()).map_err(|e| {
            format!("tool server '{namespace}': header '{name}' has an invalid value: {e}")
        })?;
        custom.insert(header, value);
    }
    config = config.custom_headers(custom);
    Ok(StreamableHttpClientTransport::from_config(config))
}
