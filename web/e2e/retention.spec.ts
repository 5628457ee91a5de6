// Settings → Retention: how long runs and their images are kept, each days field refusing a bad
// value at the field, saved and shown again after a reload, the last pass as a line, and set back
// to forever (the other specs' runs stay) — by keyboard, in dark mode, at both widths.
import { expect, test } from "@playwright/test";
import { call, docScreenshot, login } from "./helpers";

test("retention days are checked at their field, saved, shown again and the last pass is a line", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await login(page);
  await page.getByTestId("open-settings").click();
  const section = page.getByTestId("settings").getByTestId("retention");
  const runs = section.getByLabel("Keep runs (days)");
  const images = section.getByLabel("Keep images (days)");
  await expect(section.getByTestId("retention-save")).toBeEnabled();

  // The last pass, as the server recorded it (deft serve ran one at its start).
  const stored = (await call(page, "GET", "/api/settings/retention")).body;
  const last = section.getByTestId("retention-last");
  if (stored.last) {
    const { runs: r, images: i } = stored.last;
    await expect(last).toHaveText(
      new RegExp(`^Last pass \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d: removed ${r} runs?, ${i} images?, \\d+(\\.\\d)? (B|kB|MB|GB|TB)$`),
    );
  } else {
    await expect(last).toHaveText("No pass yet: the server runs one at its start and then daily.");
  }

  // Bad values, each at its own field: not a number (the form's own check, nothing sent), then a
  // number past the server's limit (the server's text).
  await runs.fill("two weeks");
  await section.getByTestId("retention-save").click();
  await expect(section.getByTestId("retention-run-days-error")).toHaveText(
    "Give the runs' days as a whole number of days, or leave it empty to keep forever.",
  );
  await expect(runs).toHaveAttribute("aria-invalid", "true");
  expect((await call(page, "GET", "/api/settings/retention")).body.run_days ?? null).toBe(stored.run_days ?? null);
  await runs.fill("30");
  await images.fill("40000");
  await section.getByTestId("retention-save").click();
  await expect(section.getByTestId("retention-image-days-error")).toHaveText(
    "image_days 40000 is too long: give a number of days up to 36500 (about a century), or 0 to keep forever",
  );
  await expect(images).toHaveAttribute("aria-invalid", "true");
  await expect(section.getByTestId("retention-run-days-error")).toHaveCount(0);
  await expect(section.getByTestId("retention-error")).toHaveCount(0);
  await docScreenshot(page, "settings-retention-error");

  // By keyboard: the runs' days, Tab to the images' days, Enter to save.
  await runs.fill("");
  await runs.focus();
  await page.keyboard.type("90");
  await page.keyboard.press("Tab");
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type("14");
  await page.keyboard.press("Enter");
  await expect(section.getByTestId("retention-saved")).toHaveText("Saved; the next daily pass applies it.");
  await expect(section.getByTestId("retention-run-days-error")).toHaveCount(0);
  await expect(runs).not.toHaveAttribute("aria-invalid", "true");
  const saved = (await call(page, "GET", "/api/settings/retention")).body;
  expect([saved.run_days, saved.image_days]).toEqual([90, 14]);

  await page.reload();
  await page.getByTestId("open-settings").click();
  const again = page.getByTestId("settings").getByTestId("retention");
  await expect(again.getByLabel("Keep runs (days)")).toHaveValue("90");
  await expect(again.getByLabel("Keep images (days)")).toHaveValue("14");
  await again.scrollIntoViewIfNeeded();
  await docScreenshot(page, "settings-retention");

  // Empty and 0 both keep forever.
  await again.getByLabel("Keep runs (days)").fill("");
  await again.getByLabel("Keep images (days)").fill("0");
  await again.getByTestId("retention-save").click();
  await expect(again.getByTestId("retention-saved")).toBeVisible();
  await expect(again.getByLabel("Keep images (days)")).toHaveValue("");
  const forever = (await call(page, "GET", "/api/settings/retention")).body;
  expect([forever.run_days ?? null, forever.image_days ?? null]).toEqual([null, null]);
});
