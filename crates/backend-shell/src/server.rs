//! The MCP server: `run_shell` and `get_system_info` over rmcp's tool router.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{Implementation, MetaObject, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::exec::{self, MAX_TIMEOUT_SECS, OUTPUT_CAP};
use crate::guard::Guard;
use crate::limits::{self, Limits};
use crate::output::ShellOutput;
use crate::policy::ShellPolicy;
use crate::sysinfo::{self, SystemInfo};
use crate::texts;

/// Arguments of `run_shell`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[schemars(description = texts::RUN_SHELL_PARAMS)]
pub struct RunShellParams {
    /// The program and its arguments, split as a POSIX shell would.
    #[schemars(description = texts::PARAM_COMMAND)]
    pub command: String,
    /// Time limit in seconds (clamped to 1..=120, default 30).
    #[serde(default)]
    #[schemars(description = texts::PARAM_TIMEOUT)]
    pub timeout: Option<i64>,
    /// Working directory; must exist.
    #[serde(default)]
    #[schemars(description = texts::PARAM_CWD)]
    pub cwd: Option<String>,
}

/// deft's shell tool server: `run_shell` (allow-listed programs, no shell) and `get_system_info`.
///
/// Cheap to clone; clones share the policy.
#[derive(Clone)]
pub struct ShellServer {
    policy: Arc<ShellPolicy>,
    guard: Arc<Guard>,
    device_env: Option<Arc<Vec<(String, String)>>>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for ShellServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellServer")
            .field("policy", &self.policy)
            .field("guard", &self.guard)
            .finish_non_exhaustive()
    }
}

/// `run_shell`'s `_meta`: its own time limit, so the tool layer allows it that long plus grace.
fn run_shell_meta() -> MetaObject {
    MetaObject(deft_protocol::timeout_meta(MAX_TIMEOUT_SECS))
}

#[tool_router]
impl ShellServer {
    /// A server enforcing `policy` and the default [`Guard`] (deft's processes, the memory
    /// devices, secrets in output). `run_shell`'s description names the policy's allow-list.
    pub fn new(policy: ShellPolicy) -> Self {
        let mut tool_router = Self::tool_router();
        if let Some(route) = tool_router.map.get_mut("run_shell") {
            let programs: Vec<(&str, Option<String>)> = policy
                .rules()
                .iter()
                .map(|(name, rule)| (*name, rule.summary()))
                .collect();
            let description = texts::run_shell_description(
                &programs,
                &texts::RunLimits {
                    default_timeout_secs: crate::exec::DEFAULT_TIMEOUT_SECS,
                    max_timeout_secs: crate::exec::MAX_TIMEOUT_SECS,
                    output_cap: crate::exec::OUTPUT_CAP,
                    memory_mib: policy.memory_mib(),
                    max_processes: policy.max_processes(),
                },
            );
            route.attr.description = Some(description.into());
        }
        Self {
            policy: Arc::new(policy),
            guard: Arc::new(Guard::default()),
            device_env: None,
            tool_router,
        }
    }

    /// The same server for a device with an environment of its own (a managed desktop's): the
    /// programs `run_shell` starts get it ([`deft_tools::device_env::apply`]), never the
    /// caller's display, buses or home.
    pub fn with_device_env(mut self, env: Vec<(String, String)>) -> Self {
        self.device_env = Some(Arc::new(env));
        self
    }

    /// The same server with `guard` (protecting deft's data folder, say) instead.
    pub fn with_guard(mut self, guard: Guard) -> Self {
        self.guard = Arc::new(guard);
        self
    }

    /// The policy this server enforces.
    pub fn policy(&self) -> &ShellPolicy {
        &self.policy
    }

    // The description is set in `new`, from the policy.
    #[tool(name = "run_shell", meta = run_shell_meta())]
    async fn run_shell(
        &self,
        Parameters(params): Parameters<RunShellParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<Json<ShellOutput>, String> {
        tokio::select! {
            result = self.run(params) => result.map(Json),
            // Dropping `run` kills the program's whole process group.
            () = context.ct.cancelled() => Err(texts::CANCELLED.to_owned()),
        }
    }

    #[tool(
        name = "get_system_info",
        description = texts::GET_SYSTEM_INFO_DESCRIPTION,
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_system_info(&self) -> Result<Json<SystemInfo>, String> {
        sysinfo::collect()
            .await
            .map(Json)
            .map_err(|e| texts::system_info_failed(&e))
    }
}

impl ShellServer {
    /// What may not be read, checked, and the call's limits, counted — off the runtime's threads
    /// (both look through `/proc`). The error is the model-facing text.
    async fn prepare(&self, argv: &[String], cwd: PathBuf) -> Result<Limits, String> {
        let guard = self.guard.clone();
        let argv = argv.to_vec();
        let (memory_mib, max_processes) = (self.policy.memory_mib(), self.policy.max_processes());
        tokio::task::spawn_blocking(move || {
            guard.check(&argv, &cwd).map_err(|e| e.to_string())?;
            Ok(Limits::for_call(memory_mib, max_processes))
        })
        .await
        .map_err(|e| texts::check_failed(&e))?
    }

    /// `run_shell` without the MCP layer: check, then run. The error is the model-facing text.
    async fn run(&self, params: RunShellParams) -> Result<ShellOutput, String> {
        let argv = self
            .policy
            .check(&params.command)
            .map_err(|r| r.to_string())?;
        let limit = exec::clamp_timeout(params.timeout);
        let cwd: Option<PathBuf> = match params.cwd.as_deref().map(str::trim) {
            Some(cwd) if !cwd.is_empty() => {
                Some(exec::check_cwd(cwd).await.map_err(|e| e.to_string())?)
            }
            _ => None,
        };
        let effective_cwd = match &cwd {
            Some(cwd) => cwd.clone(),
            None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
        };
        let memory_mib = self.policy.memory_mib();
        let limits = self.prepare(&argv, effective_cwd).await?;
        let device_env = self.device_env.as_deref().map(Vec::as_slice);
        let mut execution = exec::run_limited(
            &argv,
            limit,
            cwd.as_deref(),
            OUTPUT_CAP,
            &limits,
            device_env,
        )
        .await
        .map_err(|e| e.to_string())?;
        self.guard.hide(&mut execution.output);
        tracing::debug!(
            program = argv.first().map_or("", String::as_str),
            exit_code = ?execution.output.exit_code,
            timed_out = execution.output.timed_out,
            "run_shell finished"
        );
        let out = execution.output;
        let program = argv.first().map_or("the program", String::as_str);
        if limits::ran_out_of_memory(&out) {
            return Err(texts::over_memory_limit(
                program,
                memory_mib,
                &out.stdout,
                &out.stderr,
            ));
        }
        if out.timed_out {
            // A timeout is a failure the model must see as one, with what the program printed.
            return Err(texts::run_timed_out(
                program,
                limit.as_secs(),
                crate::exec::MAX_TIMEOUT_SECS,
                &out.stdout,
                &out.stderr,
            ));
        }
        Ok(out)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for ShellServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                texts::SERVER_NAME,
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(texts::instructions(&self.policy.programs()))
    }
}
