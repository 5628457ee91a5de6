// The devices the server knows, asked again every 5 s (busy flags and connections change).
import { useCallback, useEffect, useState } from "preact/hooks";
import { api } from "../api";
import type { Device } from "../types";

/** The device list (empty until the first answer) and a way to ask again now. */
export function useDevices(): { devices: Device[]; reload: () => Promise<void> } {
  const [devices, setDevices] = useState<Device[]>([]);
  const reload = useCallback(async () => {
    try {
      setDevices(await api.devices());
    } catch {
      // Keep the last list; the page shows the server's errors where they matter.
    }
  }, []);
  useEffect(() => {
    void reload();
    const t = setInterval(() => void reload(), 5000);
    return () => clearInterval(t);
  }, [reload]);
  return { devices, reload };
}
