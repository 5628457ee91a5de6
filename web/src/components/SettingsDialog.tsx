// The agent settings: API base, model, API key (write-only: only its masked form comes back),
// default device and max steps; then the secrets tasks type, how long runs are kept, the API
// tokens and the webhooks.
import { useState } from "preact/hooks";
import { api } from "../api";
import { useSubmit } from "../hooks/useSubmit";
import type { Device, Settings } from "../types";
import { DialogButtons, Field, FormError, InputField, Modal, TextInput } from "./FormFields";
import { deviceName } from "./DevicePicker";
import { RetentionSection } from "./RetentionSection";
import { SecretsSection } from "./SecretsSection";
import { TokensSection } from "./TokensSection";
import { WebhooksSection } from "./WebhooksSection";

/** Props of the dialog. */
export interface SettingsDialogProps {
  settings: Settings | null;
  devices: Device[];
  onSaved: (s: Settings) => void;
  onClose: () => void;
}

/** A modal dialog; Escape or Cancel closes it. Opened before the settings arrived, its form
 * starts again with them once they do (so its fields never show defaults in place of what is
 * stored), while the sections below keep what was typed in them. */
export function SettingsDialog(props: SettingsDialogProps) {
  return (
    <Modal labelledBy="settings-title" testId="settings" onClose={props.onClose}>
      <SettingsForm key={props.settings ? "loaded" : "loading"} {...props} />
      <SecretsSection />
      <RetentionSection />
      <TokensSection />
      <WebhooksSection />
    </Modal>
  );
}

/** The model settings' form. */
function SettingsForm({ settings, devices, onSaved, onClose }: SettingsDialogProps) {
  const [apiBase, setApiBase] = useState(settings?.api_base ?? "");
  const [model, setModel] = useState(settings?.model ?? "");
  const [apiKey, setApiKey] = useState("");
  const [clearKey, setClearKey] = useState(false);
  const [device, setDevice] = useState(settings?.default_device ?? "");
  const [maxSteps, setMaxSteps] = useState(String(settings?.max_steps ?? 40));
  const { error, setError, busy, submit } = useSubmit();

  const onSubmit = (e: Event) => {
    e.preventDefault();
    const steps = Number(maxSteps);
    if (!Number.isInteger(steps) || steps < 1 || steps > 200) {
      return setError("Max steps must be a whole number from 1 to 200.");
    }
    const base = apiBase.trim();
    if (base && !/^https?:\/\//i.test(base)) {
      return setError("The API base must start with http:// or https://.");
    }
    const change: Parameters<typeof api.saveSettings>[0] = {};
    if (base !== (settings?.api_base ?? "")) change.api_base = base;
    if (model.trim() !== (settings?.model ?? "")) change.model = model.trim();
    if (clearKey) change.api_key = "";
    else if (apiKey) change.api_key = apiKey;
    if (device !== (settings?.default_device ?? "")) change.default_device = device;
    if (steps !== settings?.max_steps) change.max_steps = steps;
    void submit(async () => onSaved(await api.saveSettings(change)));
  };

  const knownDevice = !device || devices.some((d) => d.id === device);

  return (
    <form onSubmit={onSubmit} class="form" noValidate>
      <h2 id="settings-title">Settings</h2>
      <InputField
        id="set-api-base"
        label="API base"
        help="Any OpenAI-compatible endpoint."
        name="api_base"
        placeholder="https://api.deepseek.com"
        value={apiBase}
        onValue={setApiBase}
      />
      <InputField
        id="set-model"
        label="Model"
        help="It needs vision to read screenshots."
        name="model"
        placeholder="deepseek-chat"
        value={model}
        onValue={setModel}
      />
      <Field id="set-api-key" label="API key" help="Stored encrypted on the server; never shown again.">
        <TextInput
          id="set-api-key"
          name="api_key"
          type="password"
          autoComplete="off"
          placeholder={settings?.api_key_set ? `${settings.api_key_masked} (set — type to replace)` : "not set"}
          value={apiKey}
          disabled={clearKey}
          onValue={setApiKey}
        />
        {settings?.api_key_set && (
          <label class="check">
            <input type="checkbox" checked={clearKey} onChange={(e) => setClearKey(e.currentTarget.checked)} /> Clear
            the stored key
          </label>
        )}
      </Field>
      <Field id="set-device" label="Default device" help="Used when a run names no device.">
        <select
          id="set-device"
          name="default_device"
          value={device}
          onChange={(e) => setDevice(e.currentTarget.value)}
        >
          <option value="">— none —</option>
          {!knownDevice && <option value={device}>{device} (not connected)</option>}
          {devices.map((d) => (
            <option value={d.id} key={d.id}>
              {deviceName(d)}
            </option>
          ))}
        </select>
      </Field>
      <InputField
        id="set-max-steps"
        label="Max steps"
        help="Model calls per run, 1–200."
        name="max_steps"
        type="number"
        min={1}
        max={200}
        step={1}
        value={maxSteps}
        onValue={setMaxSteps}
      />
      <FormError error={error} testId="settings-error" />
      <DialogButtons onCancel={onClose} busy={busy || !settings} label="Save" busyLabel={settings ? "Saving…" : "Loading…"} />
    </form>
  );
}
