// The 🎯 device picker of a page's top bar: every connected device with its profile (a phone with
// its model and Android version), busy ones and phones not ready greyed out (except the one the
// page's own run holds); locked while that run goes on.
import type { Device } from "../types";

/** Props of the picker. */
export interface DevicePickerProps {
  devices: Device[];
  /** The chosen device (or the one the run holds). */
  value: string;
  onChange: (id: string) => void;
  /** A run of this page holds `value`: shown, not changeable. */
  locked: boolean;
  /** What the device is for, as a tooltip. */
  title: string;
}

/** The picker. */
export function DevicePicker({ devices, value, onChange, locked, title }: DevicePickerProps) {
  return (
    <label class="device-picker" title={title}>
      🎯
      <select value={value} disabled={locked} onChange={(e) => onChange(e.currentTarget.value)} aria-label="Device" data-testid="device-picker">
        {!devices.some((d) => d.id === value) && <option value={value}>{value || "— device —"}</option>}
        {devices.map((d) => (
          <option key={d.id} value={d.id} disabled={!deviceReady(d) || (d.busy && !(locked && value === d.id))} title={d.note ?? undefined}>
            {deviceName(d)}
            {d.busy ? " (busy)" : ""}
          </option>
        ))}
      </select>
    </label>
  );
}

/** How a device is named in lists: its id, then what it is (a phone's model and Android
 * version, else its profile), and a phone's adb state when it is not ready. */
export function deviceName(d: Device): string {
  const what = d.label ?? d.profile;
  return deviceReady(d) ? `${d.id} · ${what}` : `${d.id} · ${what} (${d.state})`;
}

/** Whether a device can be used now (a phone waiting for authorization cannot). */
export function deviceReady(d: Device): boolean {
  return !d.state || d.state === "device";
}

/** The device a page starts with: the default device when connected, else `local`, else the
 * first idle one that is no phone (a phone is picked on purpose), else the first idle one, else
 * the first. */
export function firstDevice(devices: Device[], preferred: string | null | undefined): string {
  const usable = devices.filter((d) => !d.busy && deviceReady(d));
  const pref = preferred && devices.some((d) => d.id === preferred) ? preferred : "";
  return (
    pref ||
    usable.find((d) => d.id === "local")?.id ||
    usable.find((d) => d.kind !== "phone" && d.profile !== "android")?.id ||
    usable[0]?.id ||
    devices[0]?.id ||
    ""
  );
}
