//! Cross-origin frames: preparing a page or frame session, the frames below a session, and
//! which frame session belongs to which iframe element.

use std::collections::HashSet;

use serde_json::json;

use super::Browser;
use super::agent::AGENT_JS;
use crate::cdp::{Cdp, CdpError};

impl Browser {
    /// Cross-origin frame sessions below `session` (document order not guaranteed).
    pub(crate) fn child_frames(&self, session: &str) -> Vec<String> {
        let st = self.state();
        let mut out = Vec::new();
        let mut todo = vec![session.to_owned()];
        while let Some(s) = todo.pop() {
            for (k, f) in &st.frames {
                if f.parent == s {
                    out.push(k.clone());
                    todo.push(k.clone());
                }
            }
        }
        out
    }

    /// The cross-origin frame session whose iframe element is `key` in document `doc` of
    /// `session`: the frame's owner element (`DOM.getFrameOwner`), never a guess by URL when the
    /// owner is known; frames whose owner cannot be found fall back to the URL, then to the
    /// first frame not yet used.
    pub(super) async fn frame_of_element(
        &self,
        session: &str,
        doc: &str,
        key: u64,
        src: &str,
        used: &HashSet<String>,
    ) -> Option<String> {
        let mut kids: Vec<(String, String)> = {
            let st = self.state();
            st.frames
                .iter()
                .filter(|(s, f)| f.parent == session && !used.contains(*s))
                .map(|(s, f)| (s.clone(), f.url.clone()))
                .collect()
        };
        kids.sort();
        let mut unknown = Vec::new();
        for (s, url) in kids {
            match self.frame_owner(session, doc, &s).await {
                Some(k) if k == key => return Some(s),
                Some(_) => {}
                None => unknown.push((s, url)),
            }
        }
        unknown
            .iter()
            .find(|(_, url)| url == src)
            .or_else(|| unknown.first())
            .map(|(s, _)| s.clone())
    }

    /// The iframe element owning cross-origin frame session `child` in document `doc` of
    /// `parent`, as its element key (asked once per parent document, then remembered).
    pub(super) async fn frame_owner(&self, parent: &str, doc: &str, child: &str) -> Option<u64> {
        let target = {
            let st = self.state();
            let f = st.frames.get(child)?;
            if let Some((d, k)) = &f.owner
                && d == doc
            {
                return Some(*k);
            }
            f.target_id.clone()
        };
        let owner = self
            .cdp()
            .call(
                Some(parent),
                "DOM.getFrameOwner",
                json!({"frameId": target}),
            )
            .await
            .map_err(|e| tracing::debug!("no frame owner for {target}: {e}"))
            .ok()?;
        let node = owner["backendNodeId"].as_i64()?;
        let (d, k, _) = self
            .node_key(parent, node)
            .await
            .map_err(|e| tracing::debug!("frame owner of {target} not resolved: {e}"))
            .ok()?;
        if d != doc {
            return None;
        }
        if let Some(f) = self.state().frames.get_mut(child) {
            f.owner = Some((d, k));
        }
        Some(k)
    }
}

/// Enables what a page or frame session needs: Page events, the agent on every new document,
/// and auto-attach to cross-origin iframes (paused until prepared). A frame session is let run
/// at the end. (The URL policy has a connection of its own: `guard`.)
pub(super) async fn prepare_session(cdp: &Cdp, session: &str, page: bool) -> Result<(), CdpError> {
    let s = Some(session);
    cdp.call(s, "Page.enable", json!({})).await?;
    if page {
        // A headless tab has no window focus of its own; each acts as the focused window a
        // person works in (as on screen): copy and paste, the clipboard API, hasFocus().
        if let Err(e) = cdp
            .call(
                s,
                "Emulation.setFocusEmulationEnabled",
                json!({"enabled": true}),
            )
            .await
        {
            tracing::warn!("pages do not act focused in this browser: {e}");
        }
    }
    // A file input's chooser never opens a native dialog: the click reports it instead, and
    // set_edit_text puts the files in (DOM.setFileInputFiles). A browser without it still works.
    if let Err(e) = cdp
        .call(
            s,
            "Page.setInterceptFileChooserDialog",
            json!({"enabled": true}),
        )
        .await
    {
        tracing::warn!("file choosers are not intercepted in this browser: {e}");
    }
    cdp.call(
        s,
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": AGENT_JS}),
    )
    .await?;
    // Frames and workers wait for us when they start, so a frame's agent (and its hooks) is in
    // place before the frame's own scripts run; the event loop lets each one go once prepared.
    cdp.call(
        s,
        "Target.setAutoAttach",
        json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
    )
    .await?;
    cdp.call(
        s,
        "Runtime.evaluate",
        json!({"expression": AGENT_JS, "returnByValue": true}),
    )
    .await?;
    if !page {
        cdp.call(s, "Runtime.runIfWaitingForDebugger", json!({}))
            .await
            .ok();
    }
    Ok(())
}
