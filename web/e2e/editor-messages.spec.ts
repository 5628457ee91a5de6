// What the task editor says, and when: a brand-new task shows no problem and no unsaved changes
// before anything is typed, and a refused Create's banner goes once the validator finds the task
// valid (it never stands beside "✓ valid").
import { expect, test } from "@playwright/test";
import { addStep, call, login, unique } from "./helpers";

test("a new task says nothing is wrong before anything is typed; a refused Create's banner goes once it is valid", async ({ page }) => {
  const name = unique("E2E fresh");
  await login(page);
  // The validator's first answer is held until Create has been refused: an answer for the text
  // that was refused must not take the refusal away.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const validate = (url: URL) => url.pathname === "/api/tasks/validate";
  await page.route(validate, async (route) => {
    await held;
    await route.continue();
  });
  await page.getByTestId("nav-tasks").click();
  await page.getByTestId("new-task").click();
  await expect(page.getByTestId("task-editor")).toBeVisible();

  // Untouched: no verdict, no red, nothing unsaved (leaving does not ask).
  await expect(page.getByTestId("validity")).toHaveText("○ new task: name it and add steps");
  await expect(page.getByTestId("unsaved")).toHaveCount(0);
  await expect(page.getByTestId("issue-summary")).toHaveCount(0);
  await expect(page.getByTestId("field-issue")).toHaveCount(0);
  await expect(page.locator(".pfield-error")).toHaveCount(0);

  // Create as it is: refused, with the server's words and its problems at their fields.
  await page.getByTestId("save-task").click();
  const banner = page.getByTestId("editor-banner");
  await expect(banner).toContainText("the task is invalid");
  await expect(page.getByTestId("validity")).toContainText("error");
  await expect(page.locator(".pfield-error").filter({ has: page.getByTestId("task-name") })).toHaveCount(1);
  const answered = page.waitForResponse((r) => validate(new URL(r.url())));
  release();
  await answered;
  await page.unroute(validate);
  await expect(page.getByTestId("validity")).toHaveText(/✕ \d errors?/);
  // Rendered again after that answer (two frames), the refusal still stands.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await expect(banner).toContainText("the task is invalid");

  // Fixed: the validator says valid, and the refusal's banner is gone with its problems.
  await page.getByTestId("task-name").fill(name);
  await expect(page.getByTestId("unsaved")).toBeVisible();
  await addStep(page.getByTestId("add-step").last(), "wait");
  await expect(page.getByTestId("validity")).toHaveText("✓ valid");
  await expect(banner).toHaveCount(0);
  await expect(page.getByTestId("issue-summary")).toHaveCount(0);

  await page.getByTestId("save-task").click();
  await expect(page.getByTestId("task-title")).toHaveText(name);
  expect((await call(page, "GET", `/api/tasks/${encodeURIComponent(name)}`)).status).toBe(200);
});
