// Starts the scripted model server, a private adb server with a simulated phone (and one waiting
// for authorization), a managed virtual desktop and `deft serve` on a fresh data folder; returns
// the teardown that stops all of them (whole process groups; the phone's adb server with them).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { baseEnv, startAndWait, stop } from "./processes";

const here = dirname(fileURLToPath(import.meta.url));

/** The admin password of the test server. */
export const ADMIN_PASSWORD = "e2e-admin-password-1";

function requireBin(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: point it at the binary (scripts/web.sh e2e explains)`);
  if (!existsSync(v)) throw new Error(`${name}=${v} does not exist; build it first`);
  return v;
}

/**
 * Opens gnome-calculator on the managed desktop (in its own process group), so the live view and
 * the screenshots in docs/ show a real application rather than an empty screen.
 */
function openCalculator(dataDir: string, env: NodeJS.ProcessEnv): ChildProcess {
  const state = JSON.parse(readFileSync(join(dataDir, "desktop.json"), "utf8")) as {
    display: string;
    session_bus: string;
    a11y_bus: string;
    home: string;
  };
  return spawn("gnome-calculator", [], {
    env: {
      ...env,
      DISPLAY: state.display,
      DBUS_SESSION_BUS_ADDRESS: state.session_bus,
      AT_SPI_BUS_ADDRESS: state.a11y_bus,
      HOME: state.home,
    },
    detached: true,
    stdio: "ignore",
  });
}

/** `env` without `key`. */
function withoutKey(env: NodeJS.ProcessEnv, key: string): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out[key];
  return out;
}

/** Playwright's global setup. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const deft = requireBin("DEFT_BIN");
  const modelBin = requireBin("DEFT_MODEL_BIN");
  const adbDoubleBin = requireBin("DEFT_ADB_DOUBLE_BIN");
  const dataDir = mkdtempSync(join(tmpdir(), "deft-e2e-"));
  const env = baseEnv();
  const started: ChildProcess[] = [];
  let desktopStarted = false;

  const teardown = async () => {
    for (const c of started.reverse()) await stop(c);
    if (desktopStarted) spawnSync(deft, ["--data-dir", dataDir, "desktop", "stop"], { env, stdio: "ignore" });
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const model = await startAndWait(
      "model",
      modelBin,
      ["--script", join(here, "model-script.json"), "--port", "0"],
      env,
      /^listening on (http:\/\/\S+)$/,
      20_000,
    );
    started.push(model.child);

    // Stopped after `deft serve` (the teardown goes backwards), which follows its phones.
    const phones = await startAndWait(
      "adb-double",
      adbDoubleBin,
      ["--unauthorized"],
      env,
      /^adb server on port (\d+), phones: (\S+), (\S+) \(unauthorized\)$/,
      30_000,
    );
    started.push(phones.child);

    const desk = spawnSync(deft, ["--data-dir", dataDir, "desktop", "start"], { env, encoding: "utf8", timeout: 60_000 });
    if (desk.status !== 0) {
      throw new Error(`deft desktop start failed (${desk.status}): ${desk.stderr || desk.stdout}`);
    }
    desktopStarted = true;
    started.push(openCalculator(dataDir, env));

    const serve = await startAndWait(
      "serve",
      deft,
      ["serve", "--bind", "127.0.0.1:0", "--data-dir", dataDir],
      {
        ...withoutKey(env, "DEFT_NO_PHONES"),
        DEFT_LOG: process.env.DEFT_LOG ?? "info",
        DEFT_ADMIN_PASSWORD: ADMIN_PASSWORD,
        AGENT_API_BASE: `${model.match[1]}/v1`,
        AGENT_MODEL: "scripted",
        AGENT_API_KEY: "test-key",
        // The phones of the private adb server (never this machine's own).
        ANDROID_ADB_SERVER_PORT: phones.match[1],
        // webhooks.spec's receiver listens on loopback; its retries come at once
        DEFT_WEBHOOKS_ALLOW_PRIVATE: "1",
        DEFT_WEBHOOK_RETRY_DELAYS: "0.2,0.2",
      },
      /deft serve listening on (http:\/\/[^\s)]+)/,
      60_000,
    );
    started.push(serve.child);
    process.env.DEFT_E2E_URL = serve.match[1];
    process.env.DEFT_E2E_MODEL_URL = model.match[1];
    process.env.DEFT_E2E_PASSWORD = ADMIN_PASSWORD;
    process.env.DEFT_E2E_DATA_DIR = dataDir;
    process.env.DEFT_E2E_ADB_PORT = phones.match[1];
    process.env.DEFT_E2E_PHONE = phones.match[2];
    process.env.DEFT_E2E_PHONE_UNAUTHORIZED = phones.match[3];
  } catch (e) {
    await teardown();
    throw e;
  }
  return teardown;
}
