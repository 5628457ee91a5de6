// The settings dialog's secrets: a bad name refused, a secret set and listed by name (its value
// never on the page), a delete refused while a task uses it — the refusal names the task —, the
// run dialog showing the secret variable by name only, and all of it by keyboard in dark mode.
import { expect, test } from "@playwright/test";
import { call, login, serverUrl, unique } from "./helpers";

const VALUE = "e2e-Secret-value-9931";

test("secrets are set, listed by name and deleted only when no task uses them", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await login(page);
  const name = unique("PW").replace(/[^A-Za-z0-9_]/g, "_");
  await page.getByTestId("open-settings").click();
  const secrets = page.getByTestId("settings").getByTestId("secrets");
  await expect(secrets).toBeVisible();

  const nameField = secrets.getByLabel("Name");
  await nameField.fill("9lives");
  await secrets.getByLabel("Value").fill("x");
  await secrets.getByLabel("Value").press("Enter");
  await expect(secrets.getByTestId("secret-error")).toContainText("A secret's name is a letter");

  // By keyboard: the name, Tab to the value, Enter to set.
  await nameField.fill("");
  await nameField.focus();
  await page.keyboard.type(name);
  await page.keyboard.press("Tab");
  await page.keyboard.type(VALUE);
  await page.keyboard.press("Enter");
  const row = secrets.getByTestId("secret").filter({ hasText: name });
  await expect(row).toContainText("unused");
  await expect(secrets.getByLabel("Value")).toHaveValue("");
  expect(await page.content()).not.toContain(VALUE);

  const task = unique("uses secret");
  const made = await call(page, "POST", "/api/tasks", {
    name: task,
    device: "local",
    variables: { pw: { secret: name } },
    steps: [{ type: "key_event", keys: "{{pw}}" }],
  });
  expect(made.status).toBe(201);
  await page.keyboard.press("Escape");
  await page.getByTestId("open-settings").click();
  const again = page.getByTestId("settings").getByTestId("secrets");
  const used = again.getByTestId("secret").filter({ hasText: name });
  await expect(used).toContainText(`used by ${task}`);
  await used.getByRole("button", { name: `Delete the secret ${name}` }).click();
  await expect(again.getByTestId("secret-delete-error")).toContainText(`is used by the tasks ${task}`);
  await expect(used).toBeVisible();

  // The run dialog shows the secret variable by name, with nothing to fill in.
  await page.keyboard.press("Escape");
  await page.goto(`${serverUrl()}/tasks/${encodeURIComponent(made.body.id)}`);
  await page.getByRole("button", { name: /Run now/ }).first().click();
  await expect(page.getByTestId("run-secrets")).toContainText(`pw=••••(secret ${name})`);
  await expect(page.getByTestId("run-var")).toHaveCount(0);
  expect(await page.content()).not.toContain(VALUE);
  await page.keyboard.press("Escape");

  // The task's variables form: the variable is a secret, picked by name among the server's.
  await page.goto(`${serverUrl()}/tasks/${encodeURIComponent(made.body.id)}/edit`);
  const vars = page.getByTestId("variables");
  await expect(vars.getByLabel("Kind of pw")).toHaveValue("secret");
  await expect(vars.getByLabel("Secret of pw")).toHaveValue(name);
  await expect(vars.getByLabel("Secret of pw").locator("option", { hasText: name })).toHaveCount(1);
  expect(await page.content()).not.toContain(VALUE);

  expect((await call(page, "DELETE", `/api/tasks/${encodeURIComponent(made.body.id)}`)).status).toBe(204);
  await page.goto(`${serverUrl()}/`);
  await page.getByTestId("open-settings").click();
  const last = page.getByTestId("settings").getByTestId("secrets");
  await last.getByRole("button", { name: `Delete the secret ${name}` }).click();
  await expect(last.getByTestId("secret").filter({ hasText: name })).toHaveCount(0);
});
