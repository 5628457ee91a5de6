// Shared steps of the console's browser tests.
import { expect, type Locator, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The server under test (set by global-setup). */
export function serverUrl(): string {
  const url = process.env.DEFT_E2E_URL;
  if (!url) throw new Error("DEFT_E2E_URL is not set: the global setup did not run");
  return url;
}

/** Lets one answer the scripted model holds (`hold_before` in model-script.json) go on. */
export async function releaseModel(): Promise<void> {
  const url = process.env.DEFT_E2E_MODEL_URL;
  if (!url) throw new Error("DEFT_E2E_MODEL_URL is not set: the global setup did not run");
  const answer = await fetch(`${url}/release`, { method: "POST" });
  if (answer.status !== 204) throw new Error(`the model's release answered ${answer.status}`);
}

/** Logs in through the login page (of the server under test, or of the one at `at`). */
export async function login(page: Page, at?: { url: string; password: string }): Promise<void> {
  await page.goto(at?.url ?? serverUrl());
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(at?.password ?? process.env.DEFT_E2E_PASSWORD ?? "");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByTestId("prompt")).toBeVisible();
}

/** The widest screen on which the sidebar is a drawer (styles.css, "narrow screens"). */
export const NARROW_MAX = 900;

/** Whether `page` is narrow: its sidebar is a drawer behind the top bar's ☰. */
export function isNarrow(page: Page): boolean {
  return (page.viewportSize()?.width ?? 1280) <= NARROW_MAX;
}

/** Shows the sidebar: opens the drawer on a narrow page (on a wide one it shows anyway). */
export async function openSidebar(page: Page): Promise<void> {
  if (!isNarrow(page)) return;
  const sidebar = page.getByTestId("sidebar");
  if (await sidebar.evaluate((el) => el.classList.contains("sidebar-open"))) return;
  await page.getByTestId("menu-button").click();
  await expect(sidebar).toBeVisible();
}

/** Follows the sidebar's link `nav-<id>` (through the drawer on a narrow page). */
export async function nav(page: Page, id: string): Promise<void> {
  await openSidebar(page);
  await page.getByTestId(`nav-${id}`).click();
}

/** Shows the run history's filters (behind "Filters (n)" on a narrow page). */
export async function openRunFilters(page: Page): Promise<void> {
  if (!isNarrow(page)) return;
  const toggle = page.getByTestId("runs-filters-toggle");
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await expect(page.getByTestId("runs-filters")).toBeVisible();
}

/** Starts a new conversation and sends `prompt` with Enter. */
export async function send(page: Page, prompt: string): Promise<void> {
  await openSidebar(page);
  await page.getByRole("button", { name: "+ New conversation" }).click();
  const box = page.getByTestId("prompt");
  await box.fill(prompt);
  // Enter sends only while the composer takes a message: the device list and the run slot it
  // reads refresh on their own clock, so wait for the button a person would see enabled.
  await expect(page.getByTestId("send")).toBeEnabled();
  await box.press("Enter");
  await expect(page.getByTestId("msg-user").filter({ hasText: prompt })).toBeVisible();
}

/** The live assistant message of the current run. */
export function lastAnswer(page: Page) {
  return page.getByTestId("msg-assistant").last();
}

/** Waits until no run is active (the run indicator is gone). */
export async function waitIdle(page: Page): Promise<void> {
  await expect(page.getByTestId("run-indicator")).toHaveCount(0, { timeout: 60_000 });
}

/** Saves a screenshot to docs/screenshots when DEFT_UPDATE_SCREENSHOTS=1 (`NAME-narrow.png` from
 * a narrow page). */
export async function docScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.DEFT_UPDATE_SCREENSHOTS !== "1") return;
  const dir = resolve(here, "../../docs/screenshots");
  mkdirSync(dir, { recursive: true });
  const file = isNarrow(page) ? `${name}-narrow.png` : `${name}.png`;
  await page.screenshot({ path: join(dir, file), animations: "disabled", caret: "hide" });
}

/** A page with a field, a button and a line the button fills. */
export const ORDER_PAGE =
  "data:text/html,<title>Order form</title><label>Customer <input aria-label='Customer'></label>" +
  "<button onclick=\"document.getElementById('out').textContent='Saved '+document.querySelector('input').value\">Save order</button>" +
  "<p id='out'></p>";

/** A whole hour of the day (UTC) twelve hours from now: a schedule at it never fires while the
 * suite runs. */
export const FAR_HOUR = String((new Date().getUTCHours() + 12) % 24).padStart(2, "0");

/** A name no other test uses. */
export function unique(prefix: string): string {
  return `${prefix} ${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
}

/** A call to the console API with the page's session (and its CSRF token). */
export async function call(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const me = (await (await fetch("/api/auth/me")).json()) as { csrf_token: string };
      const r = await fetch(path, {
        method,
        headers: { "Content-Type": "application/json", "X-CSRF-Token": me.csrf_token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: r.status, body: await r.json().catch(() => null) };
    },
    { method, path, body },
  );
}

/** Runs a task and waits until the run has ended. */
export async function runToEnd(page: Page, task: string): Promise<string> {
  // The device stays busy until just after the previous run's end is stored: a 409 then means
  // "try again in a moment".
  let run = await call(page, "POST", `/api/tasks/${encodeURIComponent(task)}/run`, {});
  for (let i = 0; run.status === 409 && i < 40; i++) {
    await page.waitForTimeout(250);
    run = await call(page, "POST", `/api/tasks/${encodeURIComponent(task)}/run`, {});
  }
  expect(run.status, JSON.stringify(run.body)).toBe(202);
  await expect
    .poll(async () => (await call(page, "GET", `/api/task-runs/${run.body.id}`)).body.status, { timeout: 60_000 })
    .not.toBe("running");
  return run.body.id;
}

/** The step editor's card of the step at `path`. */
export function card(page: Page, path: string) {
  return page.locator(`[data-testid="step-card"][data-path="${path}"]`);
}

/** Adds a step of `type` with the "+ Add step…" menu `button` (a list's own add button). */
export async function addStep(button: Locator, type: string): Promise<void> {
  await button.click();
  await button.page().getByTestId("add-step-options").locator(`[data-type="${type}"]`).click();
  await expect(button.page().getByTestId("add-step-popup")).toHaveCount(0);
}
