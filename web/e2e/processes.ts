// Starting and stopping the processes the browser tests drive, each in its own process group.
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const logDir = resolve(here, "../test-results");

/**
 * The environment without a display, so `local` uses the managed desktop of the data folder, and
 * without phones, so a `deft serve` never starts this machine's adb server (the global setup's
 * serve follows the private one of the adb double instead).
 */
export function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DEFT_NO_PHONES: "1" };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  delete env.ANDROID_ADB_SERVER_PORT;
  return env;
}

/** Starts `cmd` in its own process group, its stdout and stderr in test-results/`name`.log (for a
 * process whose readiness the test sees elsewhere, e.g. a device appearing on a page). */
export function startLogged(name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(join(logDir, `${name}.log`));
  const child = spawn(cmd, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  return child;
}

/** Starts `cmd` in its own process group; resolves with the first stdout match of `pattern`. */
export function startAndWait(
  name: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  pattern: RegExp,
  timeoutMs: number,
): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(join(logDir, `${name}.log`));
  const child = spawn(cmd, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  child.stderr!.pipe(log);
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => {
      killGroup(child);
      fail(new Error(`${name} did not print ${pattern} within ${timeoutMs} ms (see ${join(logDir, `${name}.log`)})`));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`${name} exited with ${code} before it was ready (see ${join(logDir, `${name}.log`)})`));
    });
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      log.write(`[stdout] ${line}\n`);
      const m = line.match(pattern);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        ok({ child, match: m });
      }
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  // SIGINT first: `deft serve` then shuts down cleanly (and stops a desktop it started).
  try {
    if (child.pid !== undefined) process.kill(child.pid, "SIGINT");
  } catch {
    // already gone
  }
  const term = setTimeout(() => killGroup(child, "SIGTERM"), 10_000);
  const kill = setTimeout(() => killGroup(child, "SIGKILL"), 15_000);
  await exited;
  clearTimeout(term);
  clearTimeout(kill);
  // Anything left in its process group goes too.
  killGroup(child, "SIGKILL");
}
