// The Tasks page against a real `deft serve` and its managed Chromium (the `browser` device, on a
// page given as a data: URL): building a task in the step editor, its validation errors at the
// step they name, saving, a schedule in words, running it, the monitor with its live view, stop,
// a reload mid-run, the run history with per-step results and a healed selector, picking a control
// from the device, the raw JSON, the unsaved-changes guard, and the list's search and switches.
import { expect, test, type Page } from "@playwright/test";
import { addStep, call, card, docScreenshot, FAR_HOUR, login, nav, openRunFilters, ORDER_PAGE, runToEnd, unique } from "./helpers";

/** Logs in and opens the Tasks page from the header. */
async function openTasks(page: Page): Promise<void> {
  await login(page);
  await nav(page, "tasks");
  await expect(page.getByTestId("task-list")).toBeVisible();
}

/** Creates a task from its JSON in the editor's JSON tab; resolves on its page. */
async function createFromJson(page: Page, file: object): Promise<void> {
  await nav(page, "new-task");
  await page.getByTestId("tab-json").click();
  await page.getByTestId("task-json").fill(JSON.stringify(file, null, 2));
  await expect(page.getByTestId("validity")).toContainText("valid");
  await page.getByTestId("save-task").click();
  await expect(page.getByTestId("task-title")).toHaveText((file as { name: string }).name);
}

test("the task list shows each task's schedules in words, last result and next run (and the docs' screenshots)", async ({ page }) => {
  await openTasks(page);
  const tasks = [
    {
      file: {
        name: "Nightly order export",
        device: "browser",
        variables: { customer: "ACME GmbH" },
        steps: [
          { type: "open_app", url: ORDER_PAGE },
          { type: "input_text", selector: { text: "Customer", type: "edit" }, text: "{{customer}}" },
          { type: "click", selector: { text: "Save order", type: "button", match: "exact" } },
          { type: "wait_el", selector: { text: "Saved {{customer}}" } },
        ],
      },
      schedules: [{ kind: "cron", expr: `0 ${Number(FAR_HOUR)} * * *`, tz: "UTC" }],
      run: true,
    },
    {
      file: {
        name: "Inventory sync",
        device: "browser",
        steps: [
          { type: "open_app", url: ORDER_PAGE },
          { type: "wait_el", selector: { text: "Stock level", type: "text" }, timeout_s: 0.5 },
        ],
      },
      schedules: [{ kind: "every", seconds: 6 * 3600, busy: "wait" }],
      run: true,
    },
    {
      file: { name: "Weekly report", device: "local", steps: [{ type: "open_app", app: "gnome-calculator" }] },
      schedules: [
        { kind: "cron", expr: "0 8 * * 1", tz: "Europe/Berlin" },
        { kind: "cron", expr: "0 8 1 * *", tz: "UTC", enabled: false },
      ],
      off: true,
    },
    { file: { name: "Close the tip", device: "local", steps: [{ type: "key_event", keys: "{ESC}" }] }, schedules: [] },
  ];
  // The narrow run of this spec finds the wide run's tasks: names are unique, so they go first.
  const earlier = await call(page, "GET", "/api/tasks?limit=200");
  for (const t of earlier.body.items as { id: string; name: string }[]) {
    if (tasks.some((x) => x.file.name === t.name)) expect((await call(page, "DELETE", `/api/tasks/${t.id}`)).status).toBe(204);
  }
  for (const t of tasks) {
    // A task that is off is created off: its schedules never fire, not even for a moment.
    const made = await call(page, "POST", t.off ? "/api/tasks?enabled=false" : "/api/tasks", t.file);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    for (const s of t.schedules) expect((await call(page, "POST", `/api/tasks/${made.body.id}/schedules`, s)).status).toBe(201);
    if (t.run) await runToEnd(page, made.body.id);
  }
  await page.reload();
  const row = (name: string) => page.getByTestId("task-row").filter({ hasText: name });
  await expect(row("Nightly order export").getByTestId("task-schedules")).toHaveText(`every day at ${FAR_HOUR}:00 (UTC)`);
  await expect(row("Nightly order export").getByTestId("task-last-status")).toHaveText("ok");
  await expect(row("Inventory sync").getByTestId("task-schedules")).toHaveText("every 6 hours");
  await expect(row("Inventory sync").getByTestId("task-last-status")).toHaveText("failed");
  await expect(row("Weekly report").getByTestId("task-toggle")).not.toBeChecked();
  await expect(row("Weekly report").locator("li.struck")).toHaveCount(2);
  await expect(row("Close the tip").getByTestId("task-schedules")).toHaveText("manual only");
  // Failing: of these four, only the one whose last run failed (other specs' tasks may show too).
  await page.getByRole("button", { name: "Failing" }).click();
  await expect(row("Inventory sync")).toHaveCount(1);
  for (const ok of ["Nightly order export", "Weekly report", "Close the tip"]) await expect(row(ok)).toHaveCount(0);
  await page.getByRole("button", { name: "All" }).click();
  await docScreenshot(page, "tasks");
  await page.emulateMedia({ colorScheme: "dark" });
  await docScreenshot(page, "tasks-dark");
  await page.emulateMedia({ colorScheme: "light" });
});

test("build a task in the step editor, fix the error at its step, save, schedule and run it, and read its steps", async ({ page }) => {
  const name = unique("E2E order");
  await openTasks(page);
  await page.getByTestId("new-task").click();
  const editor = page.getByTestId("task-editor");
  await expect(editor).toBeVisible();
  await page.getByTestId("task-name").fill(name);
  await page.getByTestId("task-device").selectOption("browser");
  const add = () => page.getByTestId("add-step").last();

  await addStep(add(), "open_app");
  await card(page, "steps[0]").getByLabel("a URL").check();
  await card(page, "steps[0]").locator('[data-field="url"] input').fill(ORDER_PAGE);

  await addStep(add(), "input_text");
  await card(page, "steps[1]").getByTestId("selector-text").fill("Customer");
  await card(page, "steps[1]").getByTestId("selector-type").fill("edit");
  await card(page, "steps[1]").locator('[data-field="text"] textarea').fill("Zoë Ünïcode");

  // A drifted text (it heals at run time) and a misspelt type (the validator refuses it).
  await addStep(add(), "click");
  await card(page, "steps[2]").getByTestId("selector-text").fill("Save ordr");
  await card(page, "steps[2]").getByTestId("selector-match").selectOption("exact");
  await card(page, "steps[2]").getByTestId("selector-type").fill("buton");

  await addStep(add(), "wait_el");
  await card(page, "steps[3]").getByTestId("selector-text").fill("Saved Zoë Ünïcode");

  // if_el with a nested step in its `then`.
  await addStep(add(), "if_el");
  await card(page, "steps[4]").getByTestId("selector-text").fill("Saved");
  await addStep(card(page, "steps[4]").getByTestId("add-step").first(), "notify");
  await card(page, "steps[4].then[0]").locator('[data-field="message"] textarea').fill("Order saved for {{customer}}");

  // The error shows at the step and field it belongs to, and in the summary; so does the unknown
  // variable.
  const typeError = card(page, "steps[2]").getByTestId("field-issue").filter({ hasText: 'unknown control type "buton"' });
  await expect(typeError).toBeVisible();
  await expect(card(page, "steps[2]").getByTestId("step-errors")).toHaveText("✕ 1");
  await expect(card(page, "steps[2]")).toHaveClass(/step-card-error/);
  await expect(page.getByTestId("summary-issue").filter({ hasText: "steps[2].selector.type" })).toBeVisible();
  await expect(card(page, "steps[4].then[0]").getByTestId("field-issue")).toContainText("unknown variable {{customer}}");
  // The if_el counts the error of its sub-step.
  await expect(card(page, "steps[4]").getByTestId("step-errors").first()).toHaveAttribute("title", "1 error in this step and its sub-steps");
  await expect(page.getByTestId("validity")).toContainText("2 errors");
  // Collapsed, each step is one line, with its problems under it.
  await page.getByRole("button", { name: "Collapse all" }).click();
  await expect(card(page, "steps[2]").getByTestId("step-issue")).toContainText('unknown control type "buton"');
  await expect(card(page, "steps[2]").getByTestId("step-toggle")).toHaveAttribute("aria-expanded", "false");
  await page.getByTestId("task-name").focus();
  await docScreenshot(page, "task-editor");
  await page.emulateMedia({ colorScheme: "dark" });
  await docScreenshot(page, "task-editor-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // Saving now is refused with the same errors.
  await page.getByTestId("save-task").click();
  await expect(page.getByTestId("editor-banner")).toContainText("the task is invalid");
  await expect(page).toHaveURL(/\/tasks\/new$/);

  // A click in the summary takes the person to the step; fix both.
  await page.getByTestId("summary-issue").filter({ hasText: "steps[2].selector.type" }).getByRole("button").click();
  await expect(card(page, "steps[2]").getByTestId("step-toggle")).toBeFocused();
  await card(page, "steps[2]").getByTestId("selector-type").fill("button");
  await page.getByRole("button", { name: "+ Variable" }).click();
  await page.getByLabel("Variable 1 name").fill("customer");
  await page.getByLabel("Value of customer").fill("Zoë Ünïcode");
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  await expect(page.locator('[data-testid="field-issue"][data-severity="error"]')).toHaveCount(0);

  await page.getByTestId("save-task").click();
  await expect(page).toHaveURL(/\/tasks\/[^/]+\/edit$/);
  await expect(page.getByTestId("task-title")).toHaveText(name);
  await expect(page.getByTestId("unsaved")).toHaveCount(0);

  // A schedule: a bad cron expression is refused at its field, a good one is said in words.
  await page.getByTestId("task-tab-schedules").click();
  await page.getByTestId("schedule-expr").fill("61 * * * *");
  await page.getByTestId("schedule-save").click();
  await expect(page.getByTestId("schedule-form").getByTestId("field-issue")).toBeVisible();
  await page.getByTestId("schedule-expr").fill(`47 ${Number(FAR_HOUR)} * * 1-5`);
  await page.getByTestId("schedule-tz").fill("UTC");
  await page.getByTestId("schedule-save").click();
  const words = `on weekdays at ${FAR_HOUR}:47 (UTC)`;
  await expect(page.getByTestId("schedule-words")).toHaveText(words);
  await expect(page.getByTestId("next-fires")).toContainText("Next:");
  // Its switch: off, nothing is due; on again.
  await page.getByTestId("schedule-toggle").click();
  await expect(page.getByTestId("schedule-toggle")).not.toBeChecked();
  await expect(page.getByTestId("next-fires")).toHaveCount(0);
  await page.getByTestId("schedule-toggle").click();
  await expect(page.getByTestId("next-fires")).toContainText("Next:");

  // Run it: the variables come prefilled; the monitor follows it to the end.
  await page.getByTestId("run-now").click();
  const dialog = page.getByTestId("run-dialog");
  await expect(dialog.getByLabel("customer")).toHaveValue("Zoë Ünïcode");
  await expect(dialog.getByTestId("run-device")).toHaveValue("browser");
  await dialog.getByRole("button", { name: "▶ Run" }).click();
  await expect(page).toHaveURL(/\/task-runs\//);
  await expect(page.getByTestId("run-status")).toHaveText("ok", { timeout: 60_000 });
  await expect(page.getByTestId("run-trigger")).toHaveText("manual");
  const step = (path: string) => page.locator(`[data-testid="run-step"][data-path="${path}"]`);
  for (const path of ["steps[0]", "steps[1]", "steps[2]", "steps[3]", "steps[4]", "steps[4].then[0]"]) {
    await expect(step(path)).toHaveAttribute("data-status", "ok");
  }
  await expect(step("steps[1]").getByTestId("run-step-matched")).toContainText("“Customer” (edit)");
  await expect(step("steps[2]").getByTestId("run-step-matched")).toContainText("“Save order” (button)");
  await expect(step("steps[2]").getByTestId("run-step-healed")).toContainText('button "Save ordr" (exact)');
  await expect(step("steps[4].then[0]")).toContainText("Order saved for Zoë Ünïcode");
  await step("steps[1]").locator("summary").first().click();
  await expect(step("steps[1]").getByTestId("step").first()).toHaveAttribute("data-tool", "find_controls");
  await docScreenshot(page, "task-run");

  // The history: the task's runs, and back to the steps from there.
  await page.getByTestId("run-task-link").click();
  const row = page.getByTestId("run-row").first();
  await expect(row).toHaveAttribute("data-status", "ok");
  await expect(row).toContainText("manual");
  await expect(row.getByTestId("healed-count")).toHaveText("⟲ 1 healed");
  await row.getByTestId("run-link").click();
  await expect(step("steps[2]").getByTestId("run-step-healed")).toBeVisible();

  // The list: schedule in words, last result, next run.
  await nav(page, "tasks");
  const listed = page.getByTestId("task-row").filter({ hasText: name });
  await expect(listed.getByTestId("task-schedules")).toHaveText(words);
  await expect(listed.getByTestId("task-last-status")).toHaveText("ok");
  await expect(listed.locator("td").nth(5)).toContainText("in ");

  // The drifted selector, fixed by picking the control on the device (its page is still open).
  await listed.getByRole("button", { name: `Edit ${name}` }).click();
  await card(page, "steps[2]").getByTestId("pick-from-device").click();
  const picker = page.getByTestId("picker");
  await expect(picker.getByTestId("picker-window")).toContainText("Order form");
  await picker.getByTestId("picker-text").fill("Save");
  await picker.getByTestId("picker-find").click();
  await picker.getByTestId("picker-control").filter({ hasText: "Save order" }).getByRole("button", { name: /Use/ }).click();
  await expect(picker).toHaveCount(0);
  await expect(card(page, "steps[2]").getByTestId("selector-text")).toHaveValue("Save order");
  await expect(card(page, "steps[2]").getByTestId("selector-type")).toHaveValue("button");
  await expect(card(page, "steps[2]").getByTestId("selector-match")).toHaveValue("exact");
  await page.getByTestId("save-task").click();
  await expect(page.getByTestId("saved-notice")).toHaveText("Saved.");
});

test("a running task shows in the monitor with its step and live view, survives a reload, and stops", async ({ page }) => {
  const name = unique("E2E long");
  await openTasks(page);
  await createFromJson(page, {
    name,
    device: "browser",
    steps: [
      { type: "open_app", url: ORDER_PAGE },
      { type: "wait", seconds: 120, note: "a long pause to watch" },
      { type: "key_event", keys: "never" },
    ],
  });
  await page.getByTestId("run-now").click();
  await page.getByTestId("run-dialog").getByRole("button", { name: "▶ Run" }).click();

  const current = page.getByTestId("current-step");
  await expect(current).toContainText("steps[1]");
  await expect(current).toContainText("a long pause to watch");
  await expect(page.getByTestId("run-status")).toContainText("running");
  const monitor = page.getByTestId("monitor-run").filter({ hasText: name });
  await expect(monitor.getByTestId("monitor-step")).toHaveText("steps[1] wait");
  const live = page.getByTestId("live-img");
  await expect.poll(() => live.evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 20_000 }).toBeGreaterThan(0);

  // A reload replays the run and follows it on.
  await page.reload();
  await expect(page.getByTestId("current-step")).toContainText("steps[1]");
  await expect(page.locator('[data-testid="run-step"][data-path="steps[0]"]')).toHaveAttribute("data-status", "ok");
  await expect(page.locator('[data-testid="run-step"][data-path="steps[1]"]')).toHaveAttribute("data-status", "running");

  await page.getByTestId("stop-run").click();
  await expect(page.getByTestId("run-status")).toHaveText("stopped", { timeout: 15_000 });
  await expect(page.getByTestId("current-step")).toHaveCount(0);
  await expect(page.locator('[data-testid="run-step"][data-path="steps[1]"]')).toHaveAttribute("data-status", "failed");
  await expect(page.locator('[data-testid="run-step"][data-path="steps[2]"]')).toHaveAttribute("data-status", "skipped");
  await expect(page.getByTestId("monitor-run").filter({ hasText: name })).toHaveCount(0);

  // Every run, across tasks, has it as stopped.
  await nav(page, "runs");
  const row = page.getByTestId("run-row").filter({ hasText: name });
  await expect(row).toHaveAttribute("data-status", "stopped");
  await openRunFilters(page);
  await page.getByTestId("runs-status").selectOption("stopped");
  await expect(page.getByTestId("run-row").filter({ hasText: name })).toHaveCount(1);
  await page.getByTestId("runs-status").selectOption("ok");
  await expect(page.getByTestId("run-row").filter({ hasText: name })).toHaveCount(0);
});

test("bad raw JSON shows the parse error with its line and column, and the form waits for a fix", async ({ page }) => {
  await openTasks(page);
  await nav(page, "new-task");
  await page.getByTestId("tab-json").click();
  const json = page.getByTestId("task-json");
  await json.fill('{"name": "E2E broken",\n "steps": [ {"type": "wait" "seconds": 1}]}');
  const issue = page.getByTestId("summary-issue");
  await expect(issue).toHaveCount(1);
  await expect(issue).toContainText("(line 2, column");
  await expect(issue).toContainText("not valid JSON");
  await expect(page.getByTestId("json-parse-error")).toBeVisible();
  await expect(page.getByTestId("tab-form")).toBeDisabled();

  // The summary's link puts the caret where the parser stopped.
  await issue.getByRole("button").click();
  await expect(json).toBeFocused();
  const caret = await json.evaluate((t: HTMLTextAreaElement) => t.selectionStart);
  expect(caret).toBeGreaterThan('{"name": "E2E broken",\n'.length);

  await json.fill('{"name": "E2E broken",\n "steps": [ {"type": "wait", "seconds": 1}, {"type": "key_event", "keys": "a"}]}');
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  await page.getByTestId("tab-form").click();
  await expect(card(page, "steps[0]")).toHaveAttribute("data-type", "wait");
  await expect(page.getByTestId("task-name")).toHaveValue("E2E broken");

  // The keyboard: Alt+↑ moves the focused step up, and the focus stays with it; → shows the JSON.
  await card(page, "steps[1]").getByTestId("step-toggle").focus();
  await page.keyboard.press("Alt+ArrowUp");
  await expect(card(page, "steps[0]")).toHaveAttribute("data-type", "key_event");
  await expect(card(page, "steps[0]").getByTestId("step-toggle")).toBeFocused();
  await page.getByTestId("tab-form").focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByTestId("tab-json")).toBeFocused();
  expect(JSON.parse(await json.inputValue()).steps.map((x: { type: string }) => x.type)).toEqual(["key_event", "wait"]);
});

test("unsaved changes ask before leaving; the list searches, switches, duplicates and deletes", async ({ page }) => {
  const name = unique("E2E list");
  await openTasks(page);
  await createFromJson(page, { name, device: "browser", steps: [{ type: "wait", seconds: 1 }] });

  // The guard: a change, then a link away — dismissed, the page stays; accepted, it goes.
  await page.getByTestId("task-name").fill(`${name} changed`);
  await expect(page.getByTestId("unsaved")).toBeVisible();
  page.once("dialog", (d) => void d.dismiss());
  await nav(page, "tasks");
  await expect(page.getByTestId("task-editor")).toBeVisible();
  await expect(page.getByTestId("task-name")).toHaveValue(`${name} changed`);
  page.once("dialog", (d) => void d.accept());
  await nav(page, "tasks");
  await expect(page.getByTestId("task-list")).toBeVisible();

  // Search on the server, by any part of the name, any case.
  await page.getByTestId("task-search").fill(name.toUpperCase());
  const row = page.getByTestId("task-row");
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute("data-name", name);
  await page.getByTestId("task-search").fill(`${name} nothing like it`);
  await expect(page.getByText("No task's name contains")).toBeVisible();
  await page.getByTestId("task-search").fill(name);

  // The switch is stored (the box changes at the click; the reload waits for the server's answer).
  const stored = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes("/api/tasks/"));
  await row.getByTestId("task-toggle").click();
  expect((await stored).status()).toBe(200);
  await expect(row.getByTestId("task-toggle")).not.toBeChecked();
  await page.reload();
  await expect(page.getByTestId("task-search")).toHaveValue(name);
  await expect(page.getByTestId("task-row").getByTestId("task-toggle")).not.toBeChecked();

  // Duplicate opens the editor on a copy; created, both are listed; delete the copy.
  await page.getByRole("button", { name: `Duplicate ${name}` }).click();
  await expect(page.getByTestId("task-name")).toHaveValue(`${name} (copy)`);
  await page.getByTestId("save-task").click();
  await expect(page.getByTestId("task-title")).toHaveText(`${name} (copy)`);
  await nav(page, "tasks");
  await page.getByTestId("task-search").fill(name);
  await expect(page.getByTestId("task-row")).toHaveCount(2);
  page.once("dialog", (d) => void d.accept());
  await page.getByRole("button", { name: `Delete ${name} (copy)` }).click();
  await expect(page.getByTestId("task-row")).toHaveCount(1);
});

test("task names, notes and step texts from the server render as text", async ({ page }) => {
  await page.addInitScript(() => {
    delete (window as { __xss?: number }).__xss;
  });
  const name = unique('<img src=x onerror="window.__xss=1">');
  await openTasks(page);
  await createFromJson(page, {
    name,
    device: "browser",
    steps: [{ type: "notify", message: "<script>window.__xss=1</script>", note: '<svg onload="window.__xss=1">' }],
  });
  await expect(page.getByTestId("task-title")).toHaveText(name);
  await page.getByTestId("task-tab-edit").click();
  await expect(card(page, "steps[0]")).toContainText("<script>window.__xss=1</script>");
  await nav(page, "tasks");
  await expect(page.getByTestId("task-row").filter({ hasText: name })).toHaveCount(1);
  await expect(page.locator("main img, main svg, main script")).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
  // It goes again, so the narrow run's list (and its screenshot) does not start with it.
  const listed = await call(page, "GET", `/api/tasks?q=${encodeURIComponent(name)}`);
  for (const t of listed.body.items as { id: string; name: string }[]) {
    if (t.name === name) expect((await call(page, "DELETE", `/api/tasks/${t.id}`)).status).toBe(204);
  }
});
