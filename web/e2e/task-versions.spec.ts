// Task versions, folders, tags, export and import in the console against a real `deft serve`: a
// task made in a folder with tags and edited twice with notes, its history (the versions, the
// diff of two with a changed parameter and an added step, restoring version 1); the list filtered
// by folder and by tag, kept in the address across a reload; a folder exported and imported back
// with a clash renamed, and a document with an invalid task refused whole (its missing secret a
// warning); a run linking to the version it ran; a long history shown a hundred at a time.
import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { call, docScreenshot, login, nav, runToEnd, serverUrl, unique } from "./helpers";

/** A task file on the local device: one step, or two with the wait. */
function file(name: string, app: string, withWait = false): object {
  const steps: object[] = [{ type: "open_app", app }];
  if (withWait) steps.push({ type: "wait", seconds: 1 });
  return { name, device: "local", steps };
}

/** Replaces the editor's file through its JSON tab and saves it with `note`. */
async function saveJson(page: Page, body: object, note: string): Promise<void> {
  await page.getByTestId("tab-json").click();
  await page.getByTestId("task-json").fill(JSON.stringify(body, null, 2));
  await expect(page.getByTestId("validity")).toContainText("valid");
  await page.getByTestId("task-note").fill(note);
  await page.getByTestId("save-task").click();
  await expect(page.getByTestId("saved-notice")).toHaveText("Saved.");
}

test("a task in a folder with tags: edits with notes, the history, a diff and restoring version 1", async ({ page }) => {
  await login(page);
  const name = unique("Versioned report");
  const folder = `${unique("e2e").replace(" ", "-")}/nightly`;
  await nav(page, "tasks");
  await page.getByTestId("new-task").click();
  await page.getByTestId("tab-json").click();
  await page.getByTestId("task-json").fill(JSON.stringify(file(name, "gnome-calculator"), null, 2));
  await expect(page.getByTestId("validity")).toContainText("valid");
  await page.getByTestId("task-folder").fill(folder);
  const tagInput = page.getByTestId("task-tag-input");
  // Enter and a comma add a tag; Backspace in the empty field takes the last one back.
  await tagInput.fill("daily");
  await tagInput.press("Enter");
  await tagInput.fill("finance");
  await tagInput.press(",");
  await tagInput.fill("oops");
  await tagInput.press("Enter");
  await tagInput.press("Backspace");
  await expect(page.getByTestId("task-tag")).toHaveText(["daily✕", "finance✕"]);
  await docScreenshot(page, "task-folder-tags");
  await page.getByTestId("save-task").click();
  await expect(page.getByTestId("task-title")).toHaveText(name);
  await expect(page.getByTestId("task-folder")).toHaveValue(folder);

  await saveJson(page, file(name, "mousepad"), "calculator → mousepad");
  await saveJson(page, file(name, "mousepad", true), "a pause <b>after</b>");

  const stored = (await call(page, "GET", `/api/tasks/${encodeURIComponent(name)}`)).body;
  expect(stored.folder).toBe(folder);
  expect(stored.tags).toEqual(["daily", "finance"]);
  expect(stored.version).toBe(3);

  await page.getByTestId("task-tab-history").click();
  const rows = page.getByTestId("version-row");
  await expect(rows).toHaveCount(3);
  // Notes are user text: shown as written, never as markup.
  await expect(rows.nth(0).getByTestId("version-note")).toHaveText("a pause <b>after</b>");
  await expect(rows.nth(1).getByTestId("version-note")).toHaveText("calculator → mousepad");
  await expect(rows.nth(2)).toContainText("create");
  // By default the newest against the one before: the added wait.
  await expect(page.getByTestId("diff-from")).toHaveValue("2");
  await expect(page.getByTestId("diff-to")).toHaveValue("3");
  await expect(page.getByTestId("diff-step")).toHaveCount(1);
  await expect(page.locator('[data-testid="diff-step"][data-kind="added"][data-path="steps[1]"]')).toContainText("wait");
  // Version 1 against 3: the changed app as well.
  await page.getByTestId("diff-from").selectOption("1");
  await expect(page).toHaveURL(/\/history\?from=1&to=3$/);
  const changed = page.locator('[data-testid="diff-step"][data-kind="changed"][data-path="steps[0]"]');
  await expect(changed.getByTestId("diff-param")).toHaveText("app: gnome-calculator → mousepad");
  await expect(page.locator('[data-testid="diff-step"][data-kind="added"]')).toHaveCount(1);
  await docScreenshot(page, "task-history");
  await page.emulateMedia({ colorScheme: "dark" });
  await docScreenshot(page, "task-history-dark");
  await page.emulateMedia({ colorScheme: "light" });

  page.once("dialog", (d) => void d.accept());
  await rows.nth(2).getByTestId("restore-version").click();
  await expect(page).toHaveURL(/\/edit$/);
  await page.getByTestId("tab-json").click();
  await expect(page.getByTestId("task-json")).toHaveValue(/gnome-calculator/);
  await expect(page.getByTestId("task-json")).not.toHaveValue(/"wait"/);
  await page.getByTestId("task-tab-history").click();
  await expect(rows).toHaveCount(4);
  await expect(rows.nth(0)).toContainText("restore");
  await expect(rows.nth(0).getByTestId("version-note")).toHaveText("restored from 1");
});

test("the list filters by folder and by tag, kept in the address across a reload", async ({ page }) => {
  await login(page);
  const top = unique("e2e").replace(" ", "-");
  const tag = unique("tag").replace(" ", "-");
  const made: [string, string, string][] = [
    [unique("Ledger"), `${top}/finance`, tag],
    [unique("Payroll"), `${top}/finance/monthly`, ""],
    [unique("Inventory"), `${top}/stock`, tag],
  ];
  for (const [name, folder, tags] of made) {
    const r = await call(page, "POST", `/api/tasks?folder=${encodeURIComponent(folder)}&tags=${encodeURIComponent(tags)}`, file(name, "gnome-calculator"));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  await nav(page, "tasks");
  // A folder holds its subfolders' tasks.
  await page.getByTestId("folder-filter").selectOption(`${top}/finance`);
  await expect(page.getByTestId("task-row")).toHaveCount(2);
  await expect(page).toHaveURL(new RegExp(`folder=${encodeURIComponent(`${top}/finance`).replace(/%2F/g, "(%2F|/)")}`));
  await expect(page.getByTestId("task-row").first().getByTestId("task-row-folder")).toContainText(`${top}/finance`);
  await page.reload();
  await expect(page.getByTestId("folder-filter")).toHaveValue(`${top}/finance`);
  await expect(page.getByTestId("task-row")).toHaveCount(2);

  // The top folder and the tag: the two tagged tasks of its subfolders.
  await page.getByTestId("folder-filter").selectOption(top);
  await expect(page.getByTestId("task-row")).toHaveCount(3);
  await page.getByTestId("tag-filter-chip").filter({ hasText: tag }).click();
  await expect(page.getByTestId("task-row")).toHaveCount(2);
  await expect(page.getByTestId("task-row").getByTestId("task-row-tag")).toHaveText([tag, tag]);
  await page.reload();
  await expect(page.getByTestId("task-row")).toHaveCount(2);
  await expect(page.getByTestId("tag-filter-chip").filter({ hasText: tag })).toHaveAttribute("aria-pressed", "true");
  await docScreenshot(page, "task-list-folders");
});

test("export a folder, import it back with a clash renamed; an invalid document imports nothing", async ({ page }) => {
  await login(page);
  const folder = unique("e2e").replace(" ", "-");
  const name = unique("Exported");
  const r = await call(page, "POST", `/api/tasks?folder=${folder}&tags=export`, file(name, "gnome-calculator"));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  await page.goto(`${serverUrl()}/tasks?folder=${encodeURIComponent(folder)}`);
  await expect(page.getByTestId("task-row")).toHaveCount(1);

  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-tasks").click()]);
  expect(download.suggestedFilename()).toBe("deft-tasks.json");
  const path = test.info().outputPath("deft-tasks.json");
  await download.saveAs(path);
  const doc = JSON.parse(readFileSync(path, "utf8"));
  expect(doc.format).toBe("deft-tasks");
  expect(doc.tasks.map((t: { name: string }) => t.name)).toEqual([name]);
  expect(doc.tasks[0].folder).toBe(folder);

  // Back in: its name is taken — the dry run says so; renamed, it is stored as "name (2)".
  await page.getByTestId("import-tasks").click();
  await page.getByTestId("import-file").setInputFiles(path);
  await expect(page.getByTestId("import-clash")).toBeVisible();
  await expect(page.getByTestId("import-preview")).toContainText(name);
  await expect(page.getByTestId("import-submit")).toBeDisabled();
  await page.getByTestId("on-clash-rename").check();
  await expect(page.getByTestId("import-preview")).toContainText(`Would rename: ${name} → ${name} (2)`);
  await docScreenshot(page, "task-import");
  await page.getByTestId("import-submit").click();
  await expect(page.getByTestId("import-report")).toContainText(`Renamed: ${name} → ${name} (2)`);
  await page.getByTestId("import-close").click();
  await expect(page.getByTestId("task-row")).toHaveCount(2);
  expect((await call(page, "GET", `/api/tasks/${encodeURIComponent(`${name} (2)`)}`)).status).toBe(200);

  // A document with an invalid task: the error at its place, Import stays off, nothing stored.
  const bad = unique("Broken");
  const secretive = unique("Secretive");
  const invalid = {
    ...doc,
    tasks: [
      { ...doc.tasks[0], name: bad, definition: { name: bad, device: "local", steps: [{ type: "no_such_step" }] } },
      {
        ...doc.tasks[0],
        name: secretive,
        definition: { name: secretive, device: "local", variables: { pw: { secret: "NO_SUCH_SECRET" } }, steps: [{ type: "wait", seconds: 1 }] },
      },
    ],
  };
  await page.getByTestId("import-tasks").click();
  await page.getByTestId("import-file").setInputFiles({ name: "broken.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(invalid)) });
  await expect(page.getByTestId("import-errors")).toContainText("tasks[0].definition.steps[0]");
  await expect(page.getByTestId("import-warnings")).toContainText("NO_SUCH_SECRET");
  await expect(page.getByTestId("import-submit")).toBeDisabled();
  await page.getByTestId("import-close").click();
  expect((await call(page, "GET", `/api/tasks/${encodeURIComponent(bad)}`)).status).toBe(404);
  expect((await call(page, "GET", `/api/tasks/${encodeURIComponent(secretive)}`)).status).toBe(404);
});

test("a run's page shows the version it ran, a link to that version in the history", async ({ page }) => {
  await login(page);
  const name = unique("Run version");
  const made = await call(page, "POST", "/api/tasks", { name, device: "browser", steps: [{ type: "wait", seconds: 0.1 }] });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const edited = await call(page, "PUT", `/api/tasks/${made.body.id}?note=${encodeURIComponent("shorter wait")}`, {
    name,
    device: "browser",
    steps: [{ type: "wait", seconds: 0.05 }],
  });
  expect(edited.status, JSON.stringify(edited.body)).toBe(200);
  const run = await runToEnd(page, made.body.id);
  await page.goto(`${serverUrl()}/task-runs/${run}`);
  const link = page.getByTestId("run-task-version");
  await expect(link).toHaveText("v2");
  await link.click();
  await expect(page.getByTestId("task-history")).toBeVisible();
  await expect(page.getByTestId("diff-to")).toHaveValue("2");
  await expect(page.getByTestId("diff-from")).toHaveValue("1");
  await expect(page.locator('[data-testid="version-row"][data-version="2"]')).toHaveClass(/version-on/);
  await expect(page.getByTestId("diff-param")).toHaveText("seconds: 0.1 → 0.05");
});

test("a long history shows its newest 100 versions and the older ones on request", async ({ page }) => {
  await login(page);
  const name = unique("Long history");
  const made = await call(page, "POST", "/api/tasks", { name, device: "browser", steps: [{ type: "wait", seconds: 1 }] });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  for (let i = 2; i <= 102; i++) {
    const r = await call(page, "PUT", `/api/tasks/${made.body.id}?note=save%20${i}`, { name, device: "browser", steps: [{ type: "wait", seconds: i }] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  await page.goto(`${serverUrl()}/tasks/${made.body.id}/history`);
  await expect(page.getByTestId("version-row")).toHaveCount(100);
  await expect(page.getByTestId("version-row").last()).toHaveAttribute("data-version", "3");
  await page.getByTestId("older-versions").click();
  await expect(page.getByTestId("version-row")).toHaveCount(102);
  await expect(page.getByTestId("older-versions")).toHaveCount(0);
});
