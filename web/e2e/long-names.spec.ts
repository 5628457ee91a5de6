// Task names at and past their limit (200 characters, docs/console-api.md): one over is refused at
// the name's field, never cut; one at the limit keeps the task page's header on one line, the name
// ending in "…" with the whole of it in its tooltip.
import { expect, test } from "@playwright/test";
import { call, login, unique } from "./helpers";

test("a name over 200 characters is refused at its field and kept whole; a long one keeps the header on one line", async ({ page }) => {
  await login(page);
  await page.getByTestId("nav-tasks").click();
  await page.getByTestId("new-task").click();
  const field = page.getByTestId("task-name");
  const over = `${unique("E2E long")} ${"weekly stock report ".repeat(12)}`.slice(0, 230);
  await field.focus();
  await page.keyboard.insertText(over);
  await expect(field).toHaveValue(over);
  const nameIssue = page.locator(".pfield").filter({ has: field }).getByTestId("field-issue");
  await expect(nameIssue).toHaveText(/the task's name must be a non-blank text of at most 200 characters, not a text of 230 characters/);
  await page.getByTestId("save-task").click();
  await expect(page.getByTestId("editor-banner")).toContainText("the task is invalid");
  expect((await call(page, "GET", `/api/tasks?q=${encodeURIComponent(over.slice(0, 40))}`)).body.total).toBe(0);

  // At the limit: stored whole, and the page's header stays one line with its tools in one row.
  const name = over.slice(0, 200);
  const made = await call(page, "POST", "/api/tasks", { name, device: "browser", steps: [{ type: "wait", seconds: 1 }] });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect(made.body.name).toBe(name);
  page.once("dialog", (d) => void d.accept());
  await page.goto(`${new URL(page.url()).origin}/tasks/${made.body.id}`);
  const title = page.getByTestId("task-title");
  await expect(title).toHaveText(name);
  await expect(title).toHaveAttribute("title", name);
  const box = await title.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, height: el.getBoundingClientRect().height }));
  expect(box.scroll, "the name ends in … inside its room").toBeGreaterThan(box.client);
  expect(box.height).toBeLessThan(30);
  const run = (await page.getByTestId("run-now").boundingBox())!;
  const del = (await page.getByRole("button", { name: "Delete" }).boundingBox())!;
  expect(Math.abs(run.y - del.y), "the tools stay in one row").toBeLessThan(2);
  expect(del.x + del.width).toBeLessThanOrEqual(page.viewportSize()!.width);
  const bar = (await page.locator(".topbar").first().boundingBox())!;
  expect(bar.height).toBeLessThan(60);
});
