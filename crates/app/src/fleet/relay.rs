//! A device another server of the fleet holds, as a device here: a [`Device`] whose dispatcher
//! sends each batch to the holder as a fleet job, which runs it on the device there — holding
//! the device for the batch (busy there: refused with what holds it, as its own callers would
//! be) unless the batch only lists tools. What needs a device object, such as the MCP endpoint
//! of a device, then works for any device of the fleet.

use std::sync::Arc;

use deft_protocol::{Command, CommandResult, ExecBatch};
use deft_tools::computer::LIST_TOOLS;
use deft_tools::devices::DeviceInfo;
use deft_tools::dispatcher::error_results;
use deft_tools::{Device, Devices, Dispatcher, ExecContext};
use futures::future::BoxFuture;
use parking_lot::Mutex;

use crate::app::App;
use crate::texts;

/// Sends each batch to the server that holds the device.
struct RelayDispatcher {
    app: App,
    device: String,
}

impl Dispatcher for RelayDispatcher {
    fn execute<'a>(
        &'a self,
        ctx: &'a ExecContext,
        commands: Vec<Command>,
    ) -> BoxFuture<'a, Vec<CommandResult>> {
        Box::pin(async move {
            let hold = !commands.iter().all(|c| c.tool_name == LIST_TOOLS);
            let batch = ExecBatch {
                profile: Some(ctx.profile.clone()),
                agent: ctx.agent.clone(),
                process: ctx.process.clone(),
                root: ctx.root.clone(),
                early_exit: ctx.early_exit,
                commands: commands.clone(),
            };
            let relayed = tokio::select! {
                r = self.app.relay_elsewhere(&self.device, batch, ctx.deadline, hold) => r,
                () = ctx.cancel.cancelled() => Err(texts::RELAY_CANCELLED.to_owned()),
            };
            match relayed {
                Ok(results) if results.len() == commands.len() => results,
                Ok(_) => error_results(&commands, texts::HOLDER_ANSWERED_OTHERWISE),
                Err(text) => error_results(&commands, &text),
            }
        })
    }
}

/// The devices of this server, and one device another server of the fleet holds, relayed
/// (this server's own wins when the device connects here).
pub struct WithRelayed {
    local: Arc<dyn Devices>,
    relayed: Mutex<Option<Device>>,
}

impl WithRelayed {
    /// `local`'s devices, relaying none yet.
    pub fn new(local: Arc<dyn Devices>) -> WithRelayed {
        WithRelayed {
            local,
            relayed: Mutex::new(None),
        }
    }

    /// Relays device `id` (routing-table profile `profile`, as its holder lists it) through
    /// `app`'s fleet from now on.
    pub fn relay(&self, app: &App, id: &str, profile: &str) {
        let mut relayed = self.relayed.lock();
        if relayed
            .as_ref()
            .is_some_and(|d| d.id == id && d.profile == profile)
        {
            return;
        }
        let dispatcher = Arc::new(RelayDispatcher {
            app: app.clone(),
            device: id.to_owned(),
        });
        *relayed = Some(Device::new(id, profile, dispatcher));
    }
}

impl Devices for WithRelayed {
    fn list(&self) -> Vec<DeviceInfo> {
        let mut all = self.local.list();
        if let Some(d) = self.relayed.lock().as_ref()
            && all.iter().all(|l| l.id != d.id)
        {
            all.push(d.info());
            all.sort_by(|a, b| a.id.cmp(&b.id));
        }
        all
    }

    fn get(&self, id: &str) -> Option<Device> {
        self.local
            .get(id)
            .or_else(|| self.relayed.lock().as_ref().filter(|d| d.id == id).cloned())
    }
}
