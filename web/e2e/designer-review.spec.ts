// A designer draft under review after a try and in the save dialog: the exploration's warning goes
// once the try ran its step as written (the selector does match); the task's name typed in the
// save dialog leaves the draft unedited (its try results stay on the cards); an over-long name is
// refused at the dialog's field, never cut, and nothing is stored.
import { expect, test } from "@playwright/test";
import { call, card, login, unique } from "./helpers";

test("a try clears the warning it disproved; naming the task in the save dialog leaves the draft as tried; too long a name is refused at its field", async ({ page }) => {
  await login(page);
  await page.getByTestId("nav-designer").click();
  await call(page, "DELETE", "/api/agent/draft");
  await expect.poll(async () => (await call(page, "GET", "/api/agent/run")).body.run?.status ?? "free", { timeout: 60_000 }).not.toBe("running");
  await page.getByTestId("device-picker").selectOption("browser");
  await page.getByTestId("prompt").fill("E2E designer order: save an order for ACME (review)");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("draft-review")).toBeVisible({ timeout: 60_000 });

  // The exploration never saw "Saved ACME": warned at its step.
  const warned = card(page, "steps[3]");
  await expect(warned.getByTestId("step-warnings")).toHaveText("! 1");
  await expect(page.getByTestId("draft-warnings-note")).toContainText("1 warning from the exploration");

  // The try runs that step as written and it works: the warning goes, and the page says why.
  await page.getByTestId("try-draft").click();
  await expect(page.getByTestId("try-status")).toHaveText("ok", { timeout: 60_000 });
  await expect(warned.getByTestId("step-result")).toHaveAttribute("data-status", "ok");
  await expect(warned.getByTestId("step-warnings")).toHaveCount(0);
  await expect(warned).not.toHaveClass(/step-card-warning/);
  await expect(page.getByTestId("draft-warnings-note")).toHaveCount(0);
  await expect(page.getByTestId("summary-issue").filter({ hasText: "steps[3].selector" })).toHaveCount(0);
  await expect(page.getByTestId("draft-proven-note")).toContainText("The try found the control a warning was about");

  // The save dialog's name is the task's: the draft stays as tried — not edited, results shown.
  await page.getByTestId("save-as-task").click();
  const nameField = page.getByTestId("save-name");
  await expect(nameField).toHaveValue("Save an order for ACME");
  const name = unique("E2E reviewed order");
  await nameField.fill(name);
  await expect(page.getByTestId("unsaved")).toHaveCount(0);
  await expect(page.getByTestId("task-name")).toHaveValue("Save an order for ACME");
  await expect(warned.getByTestId("step-result")).toHaveAttribute("data-status", "ok");
  await expect(page.getByTestId("try-panel")).not.toContainText("the draft changed since");

  // 201 characters (typed in as a paste): kept whole, refused at the dialog's field, nothing
  // stored, the draft untouched.
  const long = `E2E drafted ${"quarterly order ".repeat(20)}`.slice(0, 201);
  await nameField.fill("");
  await nameField.focus();
  await page.keyboard.insertText(long);
  await expect(nameField).toHaveValue(long);
  const form = page.getByTestId("save-draft-form");
  await page.getByTestId("save-draft").click();
  await expect(form.getByTestId("field-issue")).toHaveText(/the task's name must be a non-blank text of at most 200 characters, not a text of 201 characters/);
  await expect(nameField).toHaveAttribute("aria-invalid", "true");
  await expect(nameField).toHaveValue(long);
  expect((await call(page, "GET", `/api/tasks?q=${encodeURIComponent("E2E drafted quarterly")}`)).body.total).toBe(0);
  await expect(page.getByTestId("task-name")).toHaveValue("Save an order for ACME");

  // A good name saves the task under it.
  await nameField.fill(name);
  await page.getByTestId("save-draft").click();
  await expect(page.getByTestId("task-title")).toHaveText(name);
  expect((await call(page, "GET", `/api/tasks/${encodeURIComponent(name)}`)).body.definition.name).toBe(name);
});
