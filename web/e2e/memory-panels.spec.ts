// The memory's panels against a real `deft serve`, the scripted model and the managed Chromium
// (the `browser` device). 🧠 Experiences: the audit's schedule changed (a bad cron refused at its
// field), an experience written by hand, recalled by a chat run (its hits and last use), the audit
// run from the panel — its suggestion with its reason (model text, shown as text), the page
// link's count, Keep (never suggested again), Confirm delete, edit, the audit history. 🎬 Actions:
// an action with coordinates refused at its path and nothing stored, a valid one created in the
// step editor, aliases edited, tried on the browser with per-step results on its cards, found by
// an alias, deleted.
import { expect, test, type Page } from "@playwright/test";
import { call, card, docScreenshot, FAR_HOUR, lastAnswer, login, ORDER_PAGE, send, unique, waitIdle } from "./helpers";

/** Opens a memory page from the page links. */
async function openMemory(page: Page, which: "experiences" | "actions"): Promise<void> {
  await page.getByTestId("nav-memory").click();
  await page.getByTestId(`nav-${which}`).click();
  await expect(page.getByTestId(which === "experiences" ? "experiences-page" : "action-list")).toBeVisible();
}

/** Marks every experience the audit would review as kept by a person, but `mine`: the audit's
 * scripted answer then speaks of `mine` alone (other specs leave experiences behind). */
async function onlyMineUndecided(page: Page, mine: string[]): Promise<void> {
  const open = (await call(page, "GET", "/api/memory/experiences?state=none&limit=1000")).body.items as { id: string }[];
  for (const x of open) if (!mine.includes(x.id)) expect((await call(page, "POST", `/api/memory/experiences/${x.id}/keep`)).status).toBe(200);
}

/** Runs the audit from the panel and waits for the pass to end (the server's word: the panel
 * shows the previous pass's line until then). */
async function auditNow(page: Page): Promise<void> {
  const passes = async () => (await call(page, "GET", "/api/memory/audits")).body as { total: number; items: { status: string }[] };
  const before = (await passes()).total;
  await page.getByTestId("audit-now").click();
  await expect.poll(async () => {
    const p = await passes();
    return p.total > before && p.items[0].status !== "running" ? p.items[0].status : "not yet";
  }, { timeout: 60_000 }).toBe("ok");
  await expect(page.getByTestId("audit-running")).toHaveCount(0);
  await expect(page.getByTestId("audit-last")).toContainText("reviewed 1 experience, suggested deleting 1");
}

/** The experience card titled `title`. */
function experience(page: Page, title: string) {
  return page.getByTestId("experience").filter({ has: page.getByTestId("experience-title").getByText(title, { exact: true }) });
}

test("the experience panel: written by hand, recalled, audited, kept or deleted by a person, edited", async ({ page }) => {
  await login(page);
  await page.evaluate(() => delete (window as { __xss?: number }).__xss);
  await openMemory(page, "experiences");

  // The daily audit's schedule: a bad cron is refused at its field, a good one shown in words.
  await page.getByTestId("audit-schedule-edit").click();
  await page.getByTestId("audit-cron").fill("61 * * * *");
  await page.getByTestId("audit-tz").fill("UTC");
  await page.getByTestId("audit-schedule-save").click();
  await expect(page.getByTestId("audit-schedule-form").locator(".issue-error")).toBeVisible();
  await page.getByTestId("audit-cron").fill(`15 ${Number(FAR_HOUR)} * * *`);
  await page.getByTestId("audit-schedule-save").click();
  await expect(page.getByTestId("audit-schedule")).toContainText(`every day at ${FAR_HOUR}:15 (UTC)`);

  // Written by hand; its title is text, not markup.
  const title = `Weekly report <i>${unique("save")}</i>`;
  await page.getByTestId("new-experience").click();
  await page.getByTestId("exp-task").fill("E2E audit: save the weekly report in the editor");
  await page.getByTestId("exp-title").fill(title);
  await page.getByTestId("exp-recipe").fill("Open the editor, choose Save in the File menu, and confirm the dialog with its OK button.");
  await page.getByTestId("experience-save").click();
  const mine = experience(page, title);
  await expect(mine).toHaveAttribute("data-state", "none");
  await expect(mine.getByTestId("experience-usage")).toHaveText("never recalled");
  await expect(mine.locator("i")).toHaveCount(0);
  const id = (await mine.getAttribute("data-id"))!;

  // A chat on a similar task recalls it: one hit, and when.
  await page.getByTestId("nav-chat").click();
  await send(page, "E2E audit: save the weekly report in the editor, please");
  await expect(lastAnswer(page).getByTestId("memory-card")).toContainText(title);
  await waitIdle(page);
  await openMemory(page, "experiences");
  await expect(mine.getByTestId("experience-usage")).toContainText("recalled 1 time · last used");

  // The audit, run from the panel, suggests deleting it; its reason is model text, shown as text.
  await onlyMineUndecided(page, [id]);
  await auditNow(page);
  const suggestion = page.getByTestId("pending-list").getByTestId("experience").filter({ hasText: title }).getByTestId("audit-suggestion");
  await expect(suggestion).toContainText("The audit suggests deleting it · score 12/100");
  await expect(suggestion.getByTestId("audit-reason")).toHaveText('It clicks a <b>Save</b> dialog <img src=x onerror="window.__xss=1"> that the app no longer shows');
  await expect(page.locator("main img")).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
  await expect(page.getByTestId("memory-pending")).toHaveText("1");
  await docScreenshot(page, "memory-experiences");
  await page.emulateMedia({ colorScheme: "dark" });
  await docScreenshot(page, "memory-experiences-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // Keep: kept, the suggestion gone, the count gone; the next audit leaves it alone.
  await suggestion.getByTestId("keep").click();
  await expect(mine).toHaveAttribute("data-state", "kept");
  await expect(mine.getByTestId("audit-suggestion")).toHaveCount(0);
  await expect(mine.getByTestId("audit-review")).toContainText("kept by you");
  await expect(page.getByTestId("memory-pending")).toHaveCount(0);

  // Edited: the new recipe shows.
  await mine.getByTestId("experience-edit").click();
  await mine.getByTestId("exp-recipe").fill("Open the editor, press Ctrl+S, and confirm the dialog with its OK button.");
  await mine.getByTestId("experience-save").click();
  await expect(mine.getByTestId("experience-recipe")).toHaveText("Open the editor, press Ctrl+S, and confirm the dialog with its OK button.");
  expect((await call(page, "GET", `/api/memory/experiences/${id}`)).body.recipe).toContain("Ctrl+S");

  // Another one, suggested by the next audit (the kept one is not reviewed again): Confirm delete.
  const other = (await call(page, "POST", "/api/memory/experiences", {
    task: "E2E audit: print the old invoice from the archive",
    title: unique("Old invoice"),
    recipe: "Open the archive, find the invoice by its number, and press Print.",
  })).body as { id: string; title: string };
  await page.reload();
  await onlyMineUndecided(page, [other.id]);
  await auditNow(page);
  const doomed = experience(page, other.title);
  await expect(doomed.getByTestId("audit-suggestion")).toBeVisible();
  await expect(page.getByTestId("memory-pending")).toHaveText("1");
  page.once("dialog", (d) => void d.accept());
  await doomed.getByTestId("confirm-delete").click();
  await expect(doomed).toHaveCount(0);
  await expect(page.getByTestId("memory-pending")).toHaveCount(0);
  expect((await call(page, "GET", `/api/memory/experiences/${other.id}`)).status).toBe(404);
  await expect(mine).toHaveAttribute("data-state", "kept");

  // Its audit history: the suggestion and the person's decision.
  await mine.locator("details.reviews summary").click();
  await expect(mine.getByTestId("reviews")).toContainText("delete · score 12/100");
  await expect(mine.getByTestId("reviews")).toContainText("(kept by a person");
});

test("the action library: refused with coordinates, created in the step editor, tried on the browser, found by alias, deleted", async ({ page }) => {
  await login(page);
  await openMemory(page, "actions");
  const name = unique("E2E save order");

  // With a click_xy step: refused at its path, nothing stored.
  await page.getByTestId("new-action").click();
  await page.getByTestId("tab-json").click();
  await page.getByTestId("task-json").fill(JSON.stringify({ name, steps: [{ type: "click_xy", x: 10, y: 20 }] }));
  await expect(page.getByTestId("validity")).toContainText("1 error");
  await expect(page.getByTestId("summary-issue").filter({ hasText: "steps[0]" })).toContainText("click_xy");
  await page.getByTestId("save-action").click();
  await expect(page.getByTestId("banner")).toContainText("the action is invalid");
  expect((await call(page, "GET", `/api/memory/actions?q=${encodeURIComponent(name)}`)).body.total).toBe(0);

  // A valid one: element selectors and a variable.
  const action = {
    name,
    description: "Saves an order for a customer on the order form",
    variables: { customer: "ACME" },
    steps: [
      { type: "open_app", url: ORDER_PAGE },
      { type: "input_text", selector: { text: "Customer", type: "edit" }, text: "{{customer}}" },
      { type: "click", selector: { text: "Save order", type: "button", match: "exact" } },
      { type: "wait_el", selector: { text: "Saved {{customer}}" }, timeout_s: 10 },
    ],
  };
  await page.getByTestId("task-json").fill(JSON.stringify(action));
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  await page.getByTestId("save-action").click();
  await expect(page).toHaveURL(/\/memory\/actions\/[^/]+$/);
  await expect(page.getByTestId("action-title")).toHaveText(`🎬 ${name}`);
  await expect(page.getByTestId("action-use")).toContainText("never used · written by hand");

  // Aliases in the form, saved.
  await page.getByTestId("tab-form").click();
  await page.getByTestId("action-aliases").fill("order form save, store the order");
  await expect(page.getByTestId("try-action")).toBeDisabled();
  await page.getByTestId("save-action").click();
  await expect(page.getByTestId("saved-notice")).toHaveText("Saved.");
  expect((await call(page, "GET", `/api/memory/actions/${encodeURIComponent(name)}`)).body.aliases).toEqual(["order form save", "store the order"]);

  // Tried on the browser with another customer: every step ok on its card and listed below.
  await page.getByTestId("action-try").getByTestId("device-picker").selectOption("browser");
  await page.getByTestId("try-var-customer").fill("Globex");
  await page.getByTestId("try-action").click();
  const tried = page.getByTestId("action-try");
  await expect(tried.getByTestId("try-outcome")).toHaveText("✓ completed on browser", { timeout: 60_000 });
  await expect(tried.getByTestId("try-text")).toContainText("steps[2] click: ok");
  for (const path of ["steps[0]", "steps[1]", "steps[2]", "steps[3]"]) {
    await expect(card(page, path).getByTestId("step-result")).toHaveAttribute("data-status", "ok");
    await expect(tried.locator(`[data-testid="run-step"][data-path="${path}"]`)).toHaveAttribute("data-status", "ok");
  }
  await expect(tried.locator('[data-testid="run-step"][data-path="steps[3]"]').getByTestId("run-step-matched")).toContainText("Saved Globex");
  await docScreenshot(page, "memory-action");
  await page.emulateMedia({ colorScheme: "dark" });
  await docScreenshot(page, "memory-action-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // An edit takes the results off the cards until it is saved and tried again.
  await card(page, "steps[1]").getByRole("button", { name: "Move step 2 down" }).click();
  await expect(card(page, "steps[1]").getByTestId("step-result")).toHaveCount(0);
  await expect(tried).toContainText("the steps changed since");
  await page.getByRole("button", { name: "Discard changes" }).click();
  await expect(card(page, "steps[1]").getByTestId("step-result")).toHaveAttribute("data-status", "ok");

  // Listed with its aliases and steps; found by an alias; deleted.
  await page.getByTestId("nav-actions").click();
  await page.getByTestId("action-search").fill("store the order");
  const row = page.getByTestId("action-row").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("action-aliases")).toContainText("order form save");
  await expect(row.locator("td").nth(2)).toHaveText("4");
  page.once("dialog", (d) => void d.accept());
  await row.getByTestId("action-delete").click();
  await expect(row).toHaveCount(0);
  expect((await call(page, "GET", `/api/memory/actions/${encodeURIComponent(name)}`)).status).toBe(404);
});
