// The device's screen beside the chat (MJPEG). Only mounted while shown, so the server captures
// frames only while someone watches.
import { useEffect, useState } from "preact/hooks";
import { liveUrl } from "../api";
import type { Device } from "../types";

/** Props of the live view. */
export interface LiveViewProps {
  device: Device | undefined;
  /** Why this device: "in use by the run" or "selected". */
  following: string;
  onHide: () => void;
}

/** The live panel. */
export function LiveView({ device, following, onHide }: LiveViewProps) {
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => setFailed(false), [device?.id]);

  let body;
  if (!device) {
    body = <div class="placeholder">Choose a device to see its screen.</div>;
  } else if (!device.has_screen) {
    body = (
      <div class="placeholder" data-testid="live-placeholder">
        <strong>{device.id}</strong> has no screen (profile {device.profile}).
      </div>
    );
  } else if (failed) {
    body = (
      <div class="placeholder" data-testid="live-placeholder">
        The live view of <strong>{device.id}</strong> is unavailable.
        <button
          class="btn btn-small"
          onClick={() => {
            setFailed(false);
            setAttempt((n) => n + 1);
          }}
        >
          Retry
        </button>
      </div>
    );
  } else {
    body = (
      <img
        key={`${device.id}-${attempt}`}
        class="live-img"
        src={liveUrl(device.id)}
        alt={`Live screen of ${device.id}`}
        data-testid="live-img"
        onError={() => setFailed(true)}
      />
    );
  }

  return (
    <aside class="live" aria-label="Live view">
      <div class="live-head">
        <span>
          📺 Live {device && <strong>· {device.id}</strong>} <span class="muted">{device ? following : ""}</span>
        </span>
        <button class="btn btn-ghost btn-small" onClick={onHide} title="Hide the live view">
          Hide
        </button>
      </div>
      <div class="live-body">{body}</div>
    </aside>
  );
}
