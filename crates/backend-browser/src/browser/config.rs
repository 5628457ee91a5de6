//! How the browser of a device is obtained and what it may do: the routing-table options.

use std::path::PathBuf;

use serde::Deserialize;
use serde_json::Value;

use crate::policy::UrlPolicy;

/// How the browser of a device is obtained and what it may do (routing-table `options`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowserConfig {
    /// Attach to a running browser instead of starting one: `ws://…` or `http://host:port`.
    pub cdp_url: Option<String>,
    /// The Chromium program (default: `DEFT_CHROMIUM`, then `chromium` on `PATH`).
    pub chromium: Option<PathBuf>,
    /// Extra command-line flags for a started Chromium.
    pub chromium_args: Vec<String>,
    /// Where downloads land (default: a `Downloads` folder in the temporary profile).
    pub downloads_dir: Option<PathBuf>,
    /// More folders whose files `set_edit_text` may put into a file input. The downloads folder
    /// and the system temp folder always count; a path must be absolute and name an existing
    /// file whose real path (links resolved) lies inside one of them.
    pub upload_dirs: Vec<PathBuf>,
    /// How long a timer an action's own event handlers start may be (milliseconds, default
    /// 1000) for the action's settling to wait for it: such timers, the
    /// animation frames and the animations they start hold the settle (never past its cap).
    /// 0 waits for none.
    pub settle_timers_ms: Option<u64>,
    /// Allowed/blocked domains and schemes.
    #[serde(flatten)]
    pub policy: UrlPolicy,
}

/// The default of [`BrowserConfig::settle_timers_ms`].
pub(crate) const DEFAULT_SETTLE_TIMERS_MS: u64 = 1000;

impl BrowserConfig {
    /// Parses routing-table options (`null` or `{}`: defaults). The error names the bad key.
    pub fn from_options(options: &Value) -> Result<Self, String> {
        if options.is_null() {
            return Ok(Self::default());
        }
        let config: Self = serde_json::from_value(options.clone())
            .map_err(|e| format!("invalid options for the browser server: {e}"))?;
        config
            .policy
            .validate()
            .map_err(|e| format!("invalid options for the browser server: {e}"))?;
        Ok(config)
    }
}
