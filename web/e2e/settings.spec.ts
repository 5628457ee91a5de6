// The settings dialog: masked key, validation, saving.
import { expect, test } from "@playwright/test";
import { docScreenshot, login } from "./helpers";

test("settings show the key masked, refuse bad max steps and save good ones", async ({ page }) => {
  await login(page);
  await page.getByTestId("open-settings").click();
  const dialog = page.getByTestId("settings");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel("Model")).toHaveValue("scripted");
  const key = dialog.getByLabel("API key");
  await expect(key).toHaveValue("");
  const placeholder = (await key.getAttribute("placeholder")) ?? "";
  expect(placeholder).toContain("(set");
  expect(placeholder).not.toContain("test-key");
  await docScreenshot(page, "settings");

  const steps = dialog.getByLabel("Max steps");
  await steps.fill("0");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog.getByTestId("settings-error")).toHaveText("Max steps must be a whole number from 1 to 200.");
  await steps.fill("201");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog.getByTestId("settings-error")).toHaveText("Max steps must be a whole number from 1 to 200.");

  await steps.fill("55");
  await dialog.getByLabel("Default device").selectOption("local");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog).toHaveCount(0);

  await page.reload();
  await page.getByTestId("open-settings").click();
  await expect(page.getByTestId("settings").getByLabel("Max steps")).toHaveValue("55");
  await expect(page.getByTestId("settings").getByLabel("Default device")).toHaveValue("local");
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("settings")).toHaveCount(0);

  // Opened before the settings have arrived (a slow server): the dialog waits for them and then
  // shows what is stored, not the defaults.
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/settings", async (route) => {
    if (route.request().method() === "GET") await gate;
    await route.continue();
  });
  await page.reload();
  await page.getByTestId("open-settings").click();
  await expect(page.getByTestId("settings").getByRole("button", { name: "Loading…" })).toBeDisabled();
  release();
  await expect(page.getByTestId("settings").getByLabel("Max steps")).toHaveValue("55");
  await expect(page.getByTestId("settings").getByRole("button", { name: "Save" })).toBeEnabled();
});
