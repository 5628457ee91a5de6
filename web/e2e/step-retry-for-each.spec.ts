// The step editor's retry and for_each fields against a real `deft serve` and its managed Chromium:
// a retry set on a click (its out-of-range times refused at its field, then fixed), a for_each
// over items typed one per line (a text and an object) with a nested step, its CSV source refused
// for a relative path; the task saved, run, and the run page showing each failed attempt of the
// retried step and each round's values.
import { expect, test, type Page } from "@playwright/test";
import { addStep, card, login, ORDER_PAGE, unique } from "./helpers";

/** The retry fieldset of the step at `path` (its "Timeout, on error, retry, note" opened). */
async function retryOf(page: Page, path: string) {
  const c = card(page, path);
  await c.locator("summary", { hasText: "Timeout, on error, retry, note" }).click();
  return c.locator('[data-field="retry"]');
}

test("retry and for_each are edited in their fields, checked by the validator, and their attempts and rounds show in the run", async ({ page }) => {
  const name = unique("E2E retry and for_each");
  await login(page);
  await page.getByTestId("nav-tasks").click();
  await page.getByTestId("new-task").click();
  await page.getByTestId("task-name").fill(name);
  await page.getByTestId("task-device").selectOption("browser");
  const add = () => page.getByTestId("add-step").last();

  await addStep(add(), "open_app");
  await card(page, "steps[0]").getByLabel("a URL").check();
  await card(page, "steps[0]").locator('[data-field="url"] input').fill(ORDER_PAGE);

  // A click that never finds its button, retried once, its failure not stopping the run.
  await addStep(add(), "click");
  await card(page, "steps[1]").getByTestId("selector-text").fill("No such button");
  const retry = await retryOf(page, "steps[1]");
  await retry.getByTestId("retry-toggle").check();
  const times = retry.locator('[data-field="times"] input');
  await expect(times).toHaveValue("2");
  await times.fill("11");
  await expect(retry.getByTestId("field-issue")).toContainText("retry's times must be a whole number from 1 to 10, not 11");
  await times.fill("1");
  await retry.locator('[data-field="delay_s"] input').fill("0.2");
  await card(page, "steps[1]").locator('[data-field="on_error"] select').selectOption("continue");
  await expect(card(page, "steps[1]").getByTestId("step-toggle")).toContainText("(retry ×1)");

  // A wait has no retry to offer.
  await addStep(add(), "wait");
  await expect(card(page, "steps[2]").locator("summary", { hasText: "Timeout, on error, note" })).toBeVisible();
  await expect(card(page, "steps[2]").locator('[data-field="retry"]')).toHaveCount(0);
  await card(page, "steps[2]").getByRole("button", { name: "Remove step 3" }).click();

  // for_each over items typed one per line; its CSV source wants an absolute path.
  await addStep(add(), "for_each");
  const each = card(page, "steps[2]");
  await each.getByLabel("row of a CSV file").check();
  await each.locator('[data-field="csv"] input').fill("orders.csv");
  await expect(each.getByTestId("field-issue")).toContainText("csv must be an absolute path");
  await each.getByLabel("item of a list").check();
  await each.locator('[data-field="items"] textarea').fill('Zoë\n{"name": "Omar", "qty": 2}');
  await each.locator('[data-field="as"] input').fill("row");
  await addStep(each.getByTestId("add-step").first(), "input_text");
  const typed = card(page, "steps[2].steps[0]");
  await typed.getByTestId("selector-text").fill("Customer");
  await typed.getByTestId("selector-type").fill("edit");
  await typed.locator('[data-field="text"] textarea').fill("{{row}} {{row.nme}}");
  await expect(typed.getByTestId("field-issue")).toContainText("unknown field {{row.nme}}; did you mean {{row.name}}?");
  await typed.locator('[data-field="text"] textarea').fill("{{row}}");
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");

  // The file says what the forms did.
  await page.getByTestId("tab-json").click();
  const file = JSON.parse(await page.getByTestId("task-json").inputValue());
  expect(file.steps[1].retry).toEqual({ times: 1, delay_s: 0.2 });
  expect(file.steps[2]).toMatchObject({ type: "for_each", as: "row", items: ["Zoë", { name: "Omar", qty: 2 }] });
  await page.getByTestId("tab-form").click();

  await page.getByTestId("save-task").click();
  await expect(page).toHaveURL(/\/tasks\/[^/]+\/edit$/);
  await page.getByTestId("run-now").click();
  await page.getByTestId("run-dialog").getByRole("button", { name: "▶ Run" }).click();
  await expect(page).toHaveURL(/\/task-runs\//);
  await expect(page.getByTestId("run-status")).toHaveText("ok", { timeout: 60_000 });
  const step = (path: string) => page.locator(`[data-testid="run-step"][data-path="${path}"]`);
  await expect(step("steps[1]")).toHaveAttribute("data-status", "failed");
  await expect(step("steps[1]").getByTestId("run-step-retry")).toContainText("attempt 1 of 2 failed: no control matches");
  await expect(step("steps[1]").getByTestId("run-step-error")).toContainText("failed 2 attempts; the last: no control matches");
  const rounds = step("steps[2]").getByTestId("run-step-rounds");
  await rounds.locator("summary").click();
  await expect(rounds.getByTestId("run-step-round")).toHaveText([/#1\s+row = “Zoë”/, /#2\s+row\.name = “Omar”\s+row\.qty = “2”/]);
  await expect(step("steps[2].steps[0]#2")).toHaveAttribute("data-status", "ok");
});
