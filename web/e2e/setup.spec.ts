// First start without DEFT_ADMIN_PASSWORD: the setup link creates the admin. Runs its own
// `deft serve` (no display and --no-desktop, so `local` has no screen and the live view says so).
import { expect, test } from "@playwright/test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baseEnv, startAndWait, stop } from "./processes";

test("the setup link creates the admin, and a device without a screen gets a placeholder", async ({ page }) => {
  const dataDir = mkdtempSync(join(tmpdir(), "deft-e2e-setup-"));
  const env = baseEnv();
  delete env.DEFT_ADMIN_PASSWORD;
  const serve = await startAndWait(
    "serve-setup",
    process.env.DEFT_BIN!,
    ["serve", "--bind", "127.0.0.1:0", "--data-dir", dataDir, "--no-desktop"],
    env,
    /create the admin account at (http:\/\/\S+#setup=\S+)/,
    60_000,
  );
  try {
    const link = serve.match[1];
    const base = link.slice(0, link.indexOf("/#"));

    // Without the token the page asks for it, and a wrong one gets the server's refusal.
    await page.goto(`${base}/`);
    await expect(page.getByRole("heading", { name: "Set up deft" })).toBeVisible();
    await page.getByLabel("Setup token").fill("not-the-token");
    await page.getByLabel("Password (at least 8 characters)").fill("short");
    await page.getByLabel("Password again").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("alert")).toHaveText("The password needs at least 8 characters.");
    await page.getByLabel("Password (at least 8 characters)").fill("a-good-password");
    await page.getByLabel("Password again").fill("a-good-password");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("alert")).toContainText("the setup link is wrong or was used already");

    // The link carries the token in its fragment; the field is not shown.
    await page.goto(link);
    await expect(page.getByLabel("Setup token")).toHaveCount(0);
    await page.getByLabel("Password (at least 8 characters)").fill("a-good-password");
    await page.getByLabel("Password again").fill("a-good-password");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByTestId("prompt")).toBeVisible();
    expect(new URL(page.url()).hash).toBe("");

    await page.getByTestId("device-picker").selectOption("local");
    await expect(page.getByTestId("live-placeholder")).toContainText("has no screen");
    await expect(page.getByTestId("live-img")).toHaveCount(0);

    // The account works for a fresh login.
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("a-good-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect(page.getByTestId("prompt")).toBeVisible();
  } finally {
    await stop(serve.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
