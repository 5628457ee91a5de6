//! The builtin tool servers this binary carries, by name.

use std::path::Path;
use std::sync::Arc;

use deft_backend_desktop::vdesktop;
use deft_backend_shell::{Guard, ShellPolicy, ShellServer};
use deft_tools::builtin::{Builtin, BuiltinRegistry};

use crate::office::{DesktopChoice, DeviceSetup, ExtraDocumentDirs};
use crate::{Globals, paths};

/// Every builtin server: `shell`, `desktop`, `browser`, `office`, `android`, over deft's data
/// folder: the desktop server finds the managed virtual desktop's state file there unless the
/// routing table's options name another.
pub fn registry(globals: &Globals) -> Arc<BuiltinRegistry> {
    registry_with(globals, &globals.data_dir, ExtraDocumentDirs::default())
}

/// [`registry`], the desktop's state file in `data_dir` (a data folder of its own, as
/// `deft dataflow`'s desktops have), with `documents` allowed to `launch_app` and the office
/// tools besides the configured document folders.
pub fn registry_with(
    globals: &Globals,
    data_dir: &Path,
    documents: ExtraDocumentDirs,
) -> Arc<BuiltinRegistry> {
    registry_for(
        globals,
        DeviceSetup {
            data_dir: data_dir.to_owned(),
            state_file: paths::desktop_state(data_dir),
            documents,
            desktop: DesktopChoice::Environment,
        },
    )
}

/// Every builtin server, the desktop and office servers made as `setup` says. A device made for
/// its managed desktop gives every program it starts — `run_shell`'s, stdio tool servers — that
/// desktop's environment ([`device_env`]).
pub fn registry_for(globals: &Globals, setup: DeviceSetup) -> Arc<BuiltinRegistry> {
    let guard = shell_guard(globals);
    let device_env = device_env(&setup);
    let mut r = BuiltinRegistry::new();
    if let Some(source) = &device_env {
        r.with_device_env(source.clone());
    }
    r.register(Builtin::new(
        deft_backend_shell::NAME,
        "allow-listed shell commands (no shell) and system information",
        move |options| {
            let policy = ShellPolicy::from_options(options)?;
            if !policy.added().is_empty() {
                tracing::warn!(
                    "the shell allow-list is widened by configuration with: {}",
                    policy.added().join(", ")
                );
            }
            let server = ShellServer::new(policy).with_guard(guard.clone());
            Ok(match &device_env {
                Some(source) => server.with_device_env(source()),
                None => server,
            })
        },
    ));
    let desktop_setup = setup.clone();
    r.register(Builtin::new(
        deft_backend_desktop::NAME,
        "Linux desktop apps through AT-SPI, XTest input and screenshots; documents open in LibreOffice (options: state_file, launch_allow, document_dirs, office_program, python)",
        move |options| {
            let mut options = options.clone();
            if let serde_json::Value::Null = options {
                options = serde_json::json!({});
            }
            if let Some(map) = options.as_object_mut() {
                map.entry("state_file")
                    .or_insert_with(|| serde_json::json!(desktop_setup.state_file));
            }
            crate::office::desktop_server(&options, &desktop_setup)
        },
    ));
    r.register(Builtin::new(
        deft_backend_office::NAME,
        "LibreOffice Writer, Calc and Impress over UNO on the selected window's document (options: document_dirs, display, python)",
        move |options| crate::office::office_server(options, &setup),
    ));
    r.register(Builtin::new(
        deft_backend_browser::NAME,
        "headless Chromium over CDP: tabs, compact control listings, real input (options: cdp_url, chromium, chromium_args, downloads_dir, allowed_domains, blocked_domains, allow_file_urls, allow_chrome_urls, upload_dirs, settle_timers_ms)",
        |options| {
            deft_backend_browser::BrowserConfig::from_options(options)
                .map(deft_backend_browser::BrowserServer::new)
        },
    ));
    r.register(Builtin::new(
        deft_backend_android::NAME,
        "an Android phone through the adb server: uiautomator listings, taps, swipes, Unicode typing, apps, screen power (options: serial, adb_port)",
        |options| {
            deft_backend_android::AndroidConfig::from_options(options)
                .map(deft_backend_android::AndroidServer::new)
        },
    ));
    Arc::new(r)
}

/// [`registry`] for the phone `serial`: its `android` server drives that phone (the routing
/// table's options for it may still name the adb server's port).
pub fn registry_for_phone(globals: &Globals, serial: &str) -> Arc<BuiltinRegistry> {
    let mut r = (*registry(globals)).clone();
    let serial = serial.to_owned();
    r.register(Builtin::new(
        deft_backend_android::NAME,
        "this phone through the adb server",
        move |options| {
            let mut config = deft_backend_android::AndroidConfig::from_options(options)?;
            config.serial = Some(serial.clone());
            Ok(deft_backend_android::AndroidServer::new(config))
        },
    ));
    Arc::new(r)
}

/// The environment of the programs a device made for its managed desktop starts: the desktop's
/// (display, buses, home), asked at each start; while it does not run, none of those at all —
/// never the caller's. `None` for a device on the caller's own desktop (its programs inherit
/// deft's environment, scrubbed).
fn device_env(setup: &DeviceSetup) -> Option<deft_tools::device_env::Source> {
    if setup.desktop != DesktopChoice::Managed {
        return None;
    }
    let state_file = setup.state_file.clone();
    Some(Arc::new(move || {
        crate::office::device_desktop(&state_file, DesktopChoice::Managed)
            .map(|target| target.env().to_vec())
            .unwrap_or_default()
    }))
}

/// What `run_shell` keeps from the model besides deft's processes: the data folder (its key file,
/// database and tokens) — but for the managed desktops' work folders, where their apps write —
/// and the routing table, whose server entries may carry credentials.
fn shell_guard(globals: &Globals) -> Guard {
    let data = &globals.data_dir;
    let open = [
        data.join(vdesktop::WORK_DIR),
        data.join(paths::DATAFLOW_DESKTOPS),
    ];
    let guard = Guard::default().protect(data, &open);
    match &globals.tools_config {
        Some(table) => guard.protect(table, &[]),
        None => guard,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(state_file: &Path, desktop: DesktopChoice) -> DeviceSetup {
        DeviceSetup {
            data_dir: state_file.parent().unwrap_or(Path::new("/")).to_owned(),
            state_file: state_file.to_owned(),
            documents: ExtraDocumentDirs::default(),
            desktop,
        }
    }

    #[tokio::test]
    async fn a_managed_devices_programs_get_its_desktops_environment_and_never_the_callers() {
        let dir = tempfile::tempdir().unwrap();
        let state_file = vdesktop::state_path(dir.path());
        // On the caller's own desktop, programs inherit deft's environment (scrubbed).
        assert!(device_env(&setup(&state_file, DesktopChoice::Environment)).is_none());
        // A managed device whose desktop does not run: no session variables at all.
        let managed = device_env(&setup(&state_file, DesktopChoice::Managed)).unwrap();
        assert_eq!(managed(), Vec::new());
        // Once it runs: its display, buses and home, asked at each start.
        let (state, _) = vdesktop::start(&state_file, &dir.path().join(vdesktop::WORK_DIR))
            .await
            .unwrap();
        let env = managed();
        let _ = vdesktop::stop(&state_file);
        assert_eq!(env, state.env());
        assert!(
            env.contains(&("DISPLAY".to_owned(), state.display.clone())),
            "{env:?}"
        );
    }
}
