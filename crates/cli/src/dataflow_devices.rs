//! The devices `deft dataflow` runs tasks on: N private managed desktops (one per `--jobs`),
//! each its own Xvfb, buses and device session — and so its own app instances — started for the
//! run and stopped after it (by a watchdog too, should deft be killed outright); or the devices
//! `--devices` names: `local` (this machine) and the clients of a deft server.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use deft_backend_desktop::vdesktop;
use deft_server::api_client::{ApiClient, ApiDispatcher};
use deft_tools::table::RoutingTable;
use deft_tools::{Device, LocalDispatcher, devices};

use crate::office::{DesktopChoice, DeviceSetup, ExtraDocumentDirs};
use crate::{Globals, builtins, local_devices, paths};

/// Managed desktops started for one run; stopped (and their folders removed) when dropped.
pub struct Desktops {
    started: Vec<(PathBuf, Option<std::process::Child>)>,
}

impl Drop for Desktops {
    fn drop(&mut self) {
        for (dir, watchdog) in self.started.drain(..) {
            if let Err(e) = vdesktop::stop(&paths::desktop_state(&dir)) {
                eprintln!(
                    "warning: cannot stop the managed desktop in {}: {e}",
                    dir.display()
                );
            }
            if let Some(mut w) = watchdog {
                let _ = w.kill();
                let _ = w.wait();
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// Starts `n` managed desktops and a device on each (`desktop-1` …), with the routing table of
/// `globals`; their apps may open the documents in `documents`. Each device works on its own
/// desktop only — its tools, and every program it starts, never on the caller's `DISPLAY`.
pub async fn managed(
    globals: &Globals,
    n: usize,
    documents: &ExtraDocumentDirs,
) -> anyhow::Result<(Vec<Device>, Desktops)> {
    let table = Arc::new(RoutingTable::from_path_or_env(
        globals.tools_config.as_deref(),
    )?);
    let root = globals
        .data_dir
        .join(paths::DATAFLOW_DESKTOPS)
        .join(std::process::id().to_string());
    let mut desktops = Desktops {
        started: Vec::new(),
    };
    let mut list = Vec::new();
    for i in 1..=n {
        let dir = root.join(format!("desktop-{i}"));
        let state = paths::desktop_state(&dir);
        vdesktop::start(&state, &dir.join(vdesktop::WORK_DIR))
            .await
            .with_context(|| format!("cannot start managed desktop {i} of {n}"))?;
        let watchdog = crate::cmd_desktop::spawn_watchdog(&dir)
            .inspect_err(|e| eprintln!("warning: no watchdog for managed desktop {i} ({e})"))
            .ok();
        desktops.started.push((dir.clone(), watchdog));
        // The device is this desktop's, whatever the caller's DISPLAY says.
        let registry = builtins::registry_for(
            globals,
            DeviceSetup {
                data_dir: dir.clone(),
                state_file: state.clone(),
                documents: documents.clone(),
                desktop: DesktopChoice::Managed,
            },
        );
        let dispatcher = LocalDispatcher::new(table.clone(), registry);
        list.push(Device::new(
            &format!("desktop-{i}"),
            "desktop",
            Arc::new(dispatcher),
        ));
    }
    Ok((list, desktops))
}

/// The devices `ids` names: `local` here (its apps may open the documents in `documents`), any
/// other id a device of the server at `server` (which allows the folders its own configuration
/// names).
pub async fn named(
    globals: &Globals,
    ids: &[String],
    server: Option<&str>,
    api_token: Option<&str>,
    documents: &ExtraDocumentDirs,
) -> anyhow::Result<Vec<Device>> {
    let mut out = Vec::new();
    let mut client = None;
    for id in ids {
        if out.iter().any(|d: &Device| &d.id == id) {
            anyhow::bail!("--devices names '{id}' twice: a device runs one task at a time");
        }
        if id == devices::LOCAL {
            let table = Arc::new(RoutingTable::from_path_or_env(
                globals.tools_config.as_deref(),
            )?);
            let directory = local_devices::directory_documents(globals, table, documents.clone());
            out.push(local_devices::pick(&directory, id)?);
            continue;
        }
        let Some(url) = server else {
            anyhow::bail!(
                "--devices names '{id}', which is not this machine: give --server URL (and --api-token) of the deft server it is connected to"
            );
        };
        let c = match &client {
            Some(c) => c,
            None => client.insert(connect(url, api_token).await?),
        };
        let (api, listed) = c;
        let profile = listed
            .iter()
            .find(|(d, _)| d == id)
            .map(|(_, p)| p.clone())
            .ok_or_else(|| {
                let known: Vec<&str> = listed.iter().map(|(d, _)| d.as_str()).collect();
                anyhow::anyhow!(
                    "the server at {url} has no device '{id}'; it has: {}",
                    known.join(", ")
                )
            })?;
        out.push(Device::new(
            id,
            &profile,
            Arc::new(ApiDispatcher::new(api.clone(), id)),
        ));
    }
    Ok(out)
}

/// The server's API client and its devices with their profiles.
async fn connect(
    url: &str,
    api_token: Option<&str>,
) -> anyhow::Result<(Arc<ApiClient>, Vec<(String, String)>)> {
    let token = api_token.context("--server needs --api-token (or DEFT_API_TOKEN)")?;
    let api = Arc::new(ApiClient::new(url, token)?);
    let listed = api.devices().await?;
    let devices = listed
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|d| {
                    Some((
                        d["id"].as_str()?.to_owned(),
                        d["profile"].as_str()?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    Ok((api, devices))
}
