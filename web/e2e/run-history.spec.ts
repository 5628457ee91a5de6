// The run history (All runs, and a task's own): runs of two tasks, two triggers, two statuses and two
// devices seeded through the API; each filter narrows the table and is kept in the URL (a reload
// and back / forward show the same view), the empty state names the filters that hide runs, a
// sort shows its direction, cursor pages go forward and back, and the export downloads exactly
// the filtered runs — at both widths (filters folded behind "Filters (n)", rows as cards).
import { expect, test, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { call, docScreenshot, isNarrow, login, nav, openRunFilters, serverUrl, unique } from "./helpers";

/** Starts `task` with `body` (trigger, device) and waits until the run has ended. */
async function runWith(page: Page, task: string, body: Record<string, unknown>): Promise<string> {
  let run = await call(page, "POST", `/api/tasks/${encodeURIComponent(task)}/run`, body);
  // The device stays busy until just after the previous run's end is stored.
  for (let i = 0; run.status === 409 && i < 40; i++) {
    await page.waitForTimeout(250);
    run = await call(page, "POST", `/api/tasks/${encodeURIComponent(task)}/run`, body);
  }
  expect(run.status, JSON.stringify(run.body)).toBe(202);
  await expect
    .poll(async () => (await call(page, "GET", `/api/task-runs/${run.body.id}`)).body.status, { timeout: 60_000 })
    .not.toBe("running");
  return run.body.id;
}

/** The ids of the rows shown, top to bottom. */
async function rowIds(page: Page): Promise<string[]> {
  return page.getByTestId("run-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-run") ?? ""));
}

/** The page's query parameter `name`. */
function param(page: Page, name: string): string | null {
  return new URL(page.url()).searchParams.get(name);
}

test("the run history filters, sorts, pages and exports, all kept in the URL", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await login(page);
  const a = unique("E2E history <b>typed</b>");
  const b = unique("E2E history stopped");
  const madeA = await call(page, "POST", "/api/tasks", { name: a, device: "local", steps: [{ type: "key_event", keys: "{ESC}" }] });
  expect(madeA.status).toBe(201);
  expect((await call(page, "POST", "/api/tasks", { name: b, device: "local", steps: [{ type: "stop_self", message: "enough" }] })).status).toBe(201);
  const aManual = await runWith(page, a, {});
  const aApi = await runWith(page, a, { trigger: "api" });
  const bBrowser = await runWith(page, b, { device: "browser" });

  // The task filter: typed (the list offers the tasks), its runs only; the name shows as text.
  await nav(page, "tasks");
  await nav(page, "runs");
  await expect(page.getByTestId("run-history")).toBeVisible();
  await openRunFilters(page);
  await page.getByTestId("runs-task").fill(a);
  await page.getByTestId("runs-task").press("Enter");
  await expect.poll(() => param(page, "task")).toBe(a);
  await expect.poll(() => rowIds(page)).toEqual([aApi, aManual]);
  await expect(page.getByTestId("runs-total")).toHaveText("2 runs");
  await expect(page.getByTestId("run-row").first()).toContainText(a);
  if (isNarrow(page)) await expect(page.getByTestId("runs-filters-toggle")).toHaveText("Filters (1)");

  // The trigger combines with it; back and forward, and a reload, show the same views.
  await page.getByTestId("runs-trigger").selectOption("api");
  await expect.poll(() => param(page, "trigger")).toBe("api");
  await expect.poll(() => rowIds(page)).toEqual([aApi]);
  await docScreenshot(page, "run-history");
  await page.goBack();
  await expect.poll(() => rowIds(page)).toEqual([aApi, aManual]);
  expect(param(page, "trigger")).toBeNull();
  await page.goForward();
  await expect.poll(() => rowIds(page)).toEqual([aApi]);
  await page.reload();
  await expect.poll(() => rowIds(page)).toEqual([aApi]);
  await openRunFilters(page);
  await expect(page.getByTestId("runs-trigger")).toHaveValue("api");
  await expect(page.getByTestId("runs-task")).toHaveValue(a);

  // The export downloads exactly the filtered runs: CSV, then JSON (by keyboard).
  await page.getByTestId("runs-export").click();
  const [csv] = await Promise.all([page.waitForEvent("download"), page.getByTestId("runs-export-csv").click()]);
  const lines = readFileSync(await csv.path(), "utf8").trimEnd().split("\r\n");
  expect(lines[0]).toBe(
    "id,task_id,task_name,trigger,schedule_id,device,status,started_at,ended_at,duration_ms,steps_ok,steps_failed,steps_skipped,steps_healed,error",
  );
  expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual([aApi]);
  await page.getByTestId("runs-export").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("runs-export-csv")).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByTestId("runs-export-json")).toBeFocused();
  const [json] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
  const runs = JSON.parse(readFileSync(await json.path(), "utf8")) as { id: string; trigger: string }[];
  expect(runs.map((r) => [r.id, r.trigger])).toEqual([[aApi, "api"]]);

  // Status and device: the other task's run stopped on the browser; the empty state names what hides runs.
  await page.getByTestId("runs-clear").click();
  await expect.poll(() => new URL(page.url()).search).toBe("");
  await openRunFilters(page);
  await page.getByTestId("runs-task").fill(b);
  await page.getByTestId("runs-task").press("Enter");
  await expect.poll(() => param(page, "task")).toBe(b);
  await page.getByTestId("runs-status").selectOption("stopped");
  await expect.poll(() => rowIds(page)).toEqual([bBrowser]);
  await expect(page.getByTestId("run-device")).toHaveText("browser");
  await page.getByTestId("runs-device").fill("local");
  await page.getByTestId("runs-device").press("Enter");
  await expect.poll(() => param(page, "device")).toBe("local");
  await expect(page.getByTestId("runs-empty")).toHaveText(`No runs match task “${b}”, status stopped, device “local”. Clear filters`);
  await page.getByTestId("runs-device").fill("browser");
  await page.getByTestId("runs-device").press("Enter");
  await expect.poll(() => rowIds(page)).toEqual([bBrowser]);
  if (isNarrow(page)) await expect(page.getByTestId("runs-filters-toggle")).toHaveText("Filters (3)");

  // The date range: a day before the runs hides them; to before from is the server's 400.
  await page.getByTestId("runs-to").fill("2000-01-01");
  await expect(page.getByTestId("runs-empty")).toContainText("to 2000-01-01");
  await page.getByTestId("runs-from").fill("2000-01-02");
  await expect(page.getByTestId("runs-error")).toContainText("to");
  const today = new Date().toISOString().slice(0, 10);
  await page.getByTestId("runs-to").fill("");
  await page.getByTestId("runs-from").fill(today);
  await expect.poll(() => rowIds(page)).toEqual([bBrowser]);
  await page.getByRole("button", { name: "Clear filters" }).first().click();

  // Sort and pages: task A oldest first, a page of one (a URL may ask any size), Next and Previous.
  await page.goto(`${serverUrl()}/task-runs?task=${encodeURIComponent(a)}&limit=1`);
  await expect.poll(() => rowIds(page)).toEqual([aApi]);
  if (isNarrow(page)) {
    await openRunFilters(page);
    await page.getByTestId("runs-sort").selectOption("started asc");
  } else {
    const started = page.getByRole("columnheader", { name: /Started/ });
    await expect(started).toHaveAttribute("aria-sort", "descending");
    await page.getByTestId("sort-started").click();
    await expect(started).toHaveAttribute("aria-sort", "ascending");
    await expect(page.getByRole("columnheader", { name: /Duration/ })).toHaveAttribute("aria-sort", "none");
  }
  await expect.poll(() => param(page, "order")).toBe("asc");
  await expect.poll(() => rowIds(page)).toEqual([aManual]);
  await expect(page.getByTestId("pager-range")).toHaveText("1–1 of 2");
  await expect(page.getByTestId("pager-prev")).toBeDisabled();
  await page.getByTestId("pager-next").click();
  await expect.poll(() => rowIds(page)).toEqual([aApi]);
  await expect(page.getByTestId("pager-range")).toHaveText("2–2 of 2");
  await expect(page.getByTestId("pager-next")).toBeDisabled();
  await page.reload();
  await expect.poll(() => rowIds(page)).toEqual([aApi]);
  await page.getByTestId("pager-prev").click();
  await expect.poll(() => rowIds(page)).toEqual([aManual]);
  await page.goBack();
  await expect.poll(() => rowIds(page)).toEqual([aApi]);

  // A task's own history takes the same filters, in its own URL.
  await page.goto(`${serverUrl()}/tasks/${encodeURIComponent(madeA.body.id)}`);
  await expect.poll(() => rowIds(page)).toEqual([aApi, aManual]);
  await openRunFilters(page);
  await expect(page.getByTestId("runs-task")).toHaveCount(0);
  await page.getByTestId("runs-trigger").selectOption("manual");
  await expect.poll(() => param(page, "trigger")).toBe("manual");
  await expect.poll(() => rowIds(page)).toEqual([aManual]);
  await page.reload();
  await expect.poll(() => rowIds(page)).toEqual([aManual]);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
});
