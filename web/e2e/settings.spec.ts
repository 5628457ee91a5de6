// The settings dialog: masked key, validation, saving; a send refused for a missing setting, then
// the settings saved (on a server of its own, started without a model).
import { expect, test } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { docScreenshot, login } from "./helpers";
import { baseEnv, startAndWait, stop } from "./processes";

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

test("a send refused for a missing model: saving the settings takes the refusal away and says they are saved", async ({ page }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "deft-e2e-nomodel-"));
  const env = baseEnv();
  for (const k of ["AGENT_API_BASE", "AGENT_MODEL", "AGENT_API_KEY"]) delete env[k];
  env.DEFT_ADMIN_PASSWORD = "e2e-admin-password-2";
  const serve = await startAndWait(
    "serve-nomodel",
    process.env.DEFT_BIN!,
    ["serve", "--bind", "127.0.0.1:0", "--data-dir", dataDir, "--no-desktop"],
    env,
    /deft serve listening on (http:\/\/[^\s)]+)/,
    60_000,
  );
  try {
    await page.goto(serve.match[1]);
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("e2e-admin-password-2");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByTestId("device-picker").selectOption("local");
    await page.getByTestId("prompt").fill("E2E quick: anything");
    await page.getByTestId("prompt").press("Enter");
    const banner = page.getByTestId("banner");
    await expect(banner).toContainText("the model is not set: open Settings (⚙) and set it");

    await page.getByTestId("open-settings").click();
    const dialog = page.getByTestId("settings");
    await dialog.getByLabel("Model").fill("scripted");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(banner).toHaveCount(0);
    await expect(page.getByTestId("notice")).toHaveText(/Settings saved: model scripted, API key not set\./);
    await page.getByTestId("notice").getByRole("button", { name: "Dismiss" }).click();
    await expect(page.getByTestId("notice")).toHaveCount(0);
  } finally {
    await stop(serve.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
