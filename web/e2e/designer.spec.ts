// Designer mode's 🧭 page against a real `deft serve`, the scripted model and the managed Chromium
// (the `browser` device): a designer run explores the order form and drafts a task whose last
// selector it never saw match; the draft opens in the step editor with that warning at its step;
// it is kept across a reload; tried on the device with per-step results on the cards; saved with
// a schedule and found on the Tasks page. The one run slot shared with the chat, both ways; a run
// that ends without a draft says why.
import { expect, test, type Page } from "@playwright/test";
import { call, card, docScreenshot, FAR_HOUR, login, send, unique } from "./helpers";

/** Logs in and opens the 🧭 page. */
async function openDesigner(page: Page): Promise<void> {
  await login(page);
  await page.getByTestId("nav-designer").click();
  await expect(page.getByRole("heading", { name: "🧭 AI builds a task" })).toBeVisible();
}

/** Describes an automation on `device` and starts the designer run. */
async function explore(page: Page, prompt: string, device: string): Promise<void> {
  await page.getByTestId("device-picker").selectOption(device);
  await page.getByTestId("prompt").fill(prompt);
  await page.getByTestId("send").click();
  await expect(page.getByTestId("msg-user").filter({ hasText: prompt })).toBeVisible();
}

/** Waits until no agent run holds the slot (on the server). */
async function slotFree(page: Page): Promise<void> {
  await expect.poll(async () => (await call(page, "GET", "/api/agent/run")).body.run?.status ?? "free", { timeout: 60_000 }).not.toBe("running");
}

test("a designer run drafts a task: warnings at their steps, kept across a reload, tried, saved with a schedule", async ({ page }) => {
  await openDesigner(page);
  await call(page, "DELETE", "/api/agent/draft");
  await page.reload();
  await expect(page.getByTestId("kept-draft")).toHaveCount(0);

  await explore(page, "E2E designer order: save an order for ACME on the order form", "browser");
  // The run ends with a draft: the review opens on it.
  const review = page.getByTestId("draft-review");
  await expect(review).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("draft-prompt")).toHaveText("E2E designer order: save an order for ACME on the order form");
  await expect(page.getByTestId("task-name")).toHaveValue("Save an order for ACME");
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  // The selector no control matched during the exploration is marked at its step and field.
  await expect(page.getByTestId("draft-warnings-note")).toContainText("1 warning from the exploration");
  await expect(card(page, "steps[3]").getByTestId("step-warnings")).toHaveText("! 1");
  await expect(card(page, "steps[3]").getByTestId("field-issue")).toContainText('no control seen during the exploration matches "Saved ACME"');
  await expect(page.getByTestId("summary-issue").filter({ hasText: "steps[3].selector" })).toBeVisible();
  for (const path of ["steps[0]", "steps[1]", "steps[2]"]) await expect(card(page, path).getByTestId("step-warnings")).toHaveCount(0);

  // Editing another field of the step keeps the warning on it; moving the step carries it along.
  // (Its "Timeout, on error, note" part is open: the draft gives the step a timeout.)
  await card(page, "steps[3]").locator('[data-field="note"] textarea, [data-field="note"] input').fill("the confirmation");
  await expect(card(page, "steps[3]").getByTestId("step-warnings")).toHaveText("! 1");
  await card(page, "steps[3]").getByRole("button", { name: "Move step 4 up" }).click();
  await expect(card(page, "steps[2]")).toHaveAttribute("data-type", "wait_el");
  await expect(card(page, "steps[2]").getByTestId("step-warnings")).toHaveText("! 1");
  await card(page, "steps[2]").getByRole("button", { name: "Move step 3 down" }).click();
  await expect(card(page, "steps[3]").getByTestId("step-warnings")).toHaveText("! 1");

  // The exploration is listed in the sidebar (not in the chat's list) and opens read-only.
  const exploration = page.getByRole("navigation", { name: "Explorations" }).getByTestId("conv").first();
  await expect(exploration).toContainText("🧭 E2E designer order");

  // Kept: a reload offers the draft again (the edits were the page's own, and leaving asks first).
  page.once("dialog", (d) => void d.accept());
  await page.reload();
  const offer = page.getByTestId("kept-draft");
  await expect(offer).toContainText("Save an order for ACME");
  await expect(offer).toContainText("E2E designer order");
  await exploration.click();
  const transcript = page.getByTestId("exploration");
  await expect(transcript.getByTestId("step").first()).toHaveAttribute("data-tool", "new_tab");
  await expect(transcript.locator('[data-testid="step"][data-tool="get_app_window_controls_info"]')).toHaveAttribute("data-status", "success");
  await expect(transcript.locator('[data-testid="step"][data-tool="submit_task"]')).toHaveCount(2);
  await transcript.getByTestId("open-draft").click();
  await expect(review).toBeVisible();
  await expect(card(page, "steps[3]").getByTestId("step-warnings")).toHaveText("! 1");

  // Try it: the draft runs once on the browser; each step's result shows on its card and beside.
  await page.getByTestId("try-draft").click();
  const tryPanel = page.getByTestId("try-panel");
  await expect(tryPanel.getByTestId("try-status")).toHaveText("ok", { timeout: 60_000 });
  for (const path of ["steps[0]", "steps[1]", "steps[2]", "steps[3]"]) {
    await expect(card(page, path).getByTestId("step-result")).toHaveAttribute("data-status", "ok");
    await expect(tryPanel.locator(`[data-testid="run-step"][data-path="${path}"]`)).toHaveAttribute("data-status", "ok");
  }
  await expect(tryPanel.locator('[data-testid="run-step"][data-path="steps[2]"]').getByTestId("run-step-matched")).toContainText("“Save order” (button)");
  const tries = await call(page, "GET", "/api/task-runs?task=draft");
  expect(tries.body.items[0].trigger).toBe("try");
  await docScreenshot(page, "designer");
  await page.emulateMedia({ colorScheme: "dark" });
  await docScreenshot(page, "designer-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // An edit makes the results stale: they leave the cards, the panel says why.
  await card(page, "steps[1]").locator('[data-field="text"] textarea').fill("ACME GmbH");
  await expect(card(page, "steps[1]").getByTestId("step-result")).toHaveCount(0);
  await expect(tryPanel).toContainText("the draft changed since");

  // Save as a task with a schedule; a bad cron expression first is refused at its field and
  // stores nothing.
  const name = unique("E2E drafted order");
  await page.getByTestId("save-as-task").click();
  await page.getByTestId("save-name").fill(name);
  // The name is the saved task's: the draft under review keeps its own.
  await expect(page.getByTestId("task-name")).toHaveValue("Save an order for ACME");
  await page.getByTestId("save-scheduled").check();
  await page.getByTestId("schedule-expr").fill("61 * * * *");
  await page.getByTestId("save-draft").click();
  await expect(page.getByTestId("save-draft-form").getByTestId("field-issue")).toBeVisible();
  await expect(page.getByTestId("save-error")).toContainText("nothing was saved");
  expect((await call(page, "GET", `/api/tasks/${encodeURIComponent(name)}`)).status).toBe(404);
  await page.getByTestId("schedule-expr").fill(`15 ${Number(FAR_HOUR)} * * *`);
  await page.getByTestId("schedule-tz").fill("UTC");
  await page.getByTestId("save-draft").click();
  await expect(page).toHaveURL(/\/tasks\/[^/]+$/);
  await expect(page.getByTestId("task-title")).toHaveText(name);

  // On the Tasks page, with its schedule in words; the kept draft is gone.
  await page.getByTestId("nav-tasks").click();
  const row = page.getByTestId("task-row").filter({ hasText: name });
  await expect(row.getByTestId("task-schedules")).toHaveText(`every day at ${FAR_HOUR}:15 (UTC)`);
  await expect(row.getByTestId("task-toggle")).toBeChecked();
  const saved = await call(page, "GET", `/api/tasks/${encodeURIComponent(name)}`);
  expect(saved.body.definition.steps[1].text).toBe("ACME GmbH");
  expect((await call(page, "GET", "/api/agent/draft")).status).toBe(404);
  await page.getByTestId("nav-designer").click();
  await expect(page.getByTestId("kept-draft")).toHaveCount(0);
});

test("designer runs and chats share the one run slot, both ways; a stopped exploration says there is no draft", async ({ page }) => {
  await openDesigner(page);
  await slotFree(page);
  await explore(page, "E2E designer slow: look around for a long time", "browser");
  await expect(page.getByTestId("run-indicator")).toContainText("exploring");
  await expect(page.getByTestId("msg-assistant").getByTestId("step")).toHaveAttribute("data-tool", "get_desktop_app_info");
  await expect(page.getByTestId("msg-assistant").getByTestId("answer")).toContainText("looking at the screen");
  await docScreenshot(page, "designer-exploring");

  // The chat page: "designer exploring", sending held; the designer's conversation not listed.
  await page.getByTestId("nav-chat").click();
  await expect(page.getByTestId("slot-other")).toContainText("designer exploring");
  await page.getByTestId("prompt").fill("E2E quick: answer at once");
  await expect(page.getByTestId("send")).toBeDisabled();
  await expect(page.getByTestId("slot-note")).toContainText("A designer run is exploring");
  await expect(page.getByTestId("conv").filter({ hasText: "🧭" })).toHaveCount(0);

  // Back on the 🧭 page, a reload follows the run again; stop it: no draft, and why.
  await page.getByTestId("nav-designer").click();
  await page.reload();
  await expect(page.getByTestId("run-indicator")).toBeVisible();
  await expect(page.getByTestId("msg-user")).toHaveText("E2E designer slow: look around for a long time");
  await page.getByTestId("stop").click();
  await expect(page.getByTestId("draft-error")).toContainText("the run was stopped before a valid task was submitted");
  await expect(page.getByTestId("run-indicator")).toHaveCount(0);

  // The other way round: a chat runs, the 🧭 page says so and holds its button.
  await slotFree(page);
  await page.getByTestId("nav-chat").click();
  await expect(page.getByTestId("slot-other")).toHaveCount(0);
  await send(page, "E2E stop: a long answer");
  await expect(page.getByTestId("run-indicator")).toBeVisible();
  await page.getByTestId("nav-designer").click();
  await expect(page.getByTestId("slot-other")).toContainText("chat running");
  await expect(page.getByTestId("slot-note")).toContainText("A chat run holds the agent");
  await page.getByTestId("prompt").fill("E2E designer gives up: anything");
  await expect(page.getByTestId("send")).toBeDisabled();
  // Told by the server too: 409.
  const refused = await call(page, "POST", "/api/agent/run", { prompt: "E2E designer gives up", device: "local", mode: "designer" });
  expect(refused.status).toBe(409);
  await page.getByTestId("nav-chat").click();
  await page.getByTestId("stop").click();
  await expect(page.getByTestId("run-indicator")).toHaveCount(0, { timeout: 30_000 });
  // Freed, the 🧭 page takes runs again.
  await page.getByTestId("nav-designer").click();
  await expect(page.getByTestId("slot-other")).toHaveCount(0);
});

test("a designer run whose model gives up shows why there is no draft (as text), and keeps the earlier draft", async ({ page }) => {
  await page.addInitScript(() => {
    delete (window as { __xss?: number }).__xss;
  });
  await openDesigner(page);
  await slotFree(page);
  const before = await call(page, "GET", "/api/agent/draft");
  await explore(page, "E2E designer gives up: book a flight", "local");
  const why = page.getByTestId("draft-error");
  await expect(why).toContainText("No task draft.", { timeout: 60_000 });
  await expect(why).toContainText('the model ended without submitting a task: "I could not find an order form on this device. <img src=x onerror="window.__xss=1">"');
  await expect(page.locator("main img")).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
  await expect(page.getByTestId("draft-review")).toHaveCount(0);
  const after = await call(page, "GET", "/api/agent/draft");
  expect(after.status).toBe(before.status);
});

test("a device picked while the page still loads stays picked when the load ends", async ({ page }) => {
  await login(page);
  // The page's first load waits for the settings; hold them until the person has picked.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/settings", async (route) => {
    if (route.request().method() === "GET") await held;
    await route.continue();
  });
  await page.getByTestId("nav-designer").click();
  const picker = page.getByTestId("device-picker");
  await expect(picker.locator('option[value="browser"]')).toHaveCount(1);
  await picker.selectOption("browser");
  release();
  // The load ends by putting the cursor in the description box; the pick is still there.
  await expect(page.getByTestId("prompt")).toBeFocused();
  await expect(picker).toHaveValue("browser");
  await page.unroute("**/api/settings");
});
