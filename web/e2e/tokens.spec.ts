// The settings dialog's API tokens: a token without scopes refused at the form, one made with a
// scope by keyboard — its value shown once, then gone from the page —, that value reaching what
// its scope names and refused elsewhere (403), listed active with its last use, revoked from the
// list and refused at once (401); in dark mode, at both widths.
import { expect, test, type APIRequestContext } from "@playwright/test";
import { docScreenshot, login, serverUrl, unique } from "./helpers";

async function status(request: APIRequestContext, token: string, path: string): Promise<number> {
  const r = await request.get(`${serverUrl()}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return r.status();
}

test("API tokens are made with scopes, shown once, used and revoked", async ({ page, request }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await login(page);
  const name = unique("ci").replace(/\s+/g, "-");
  await page.getByTestId("open-settings").click();
  const tokens = page.getByTestId("settings").getByTestId("tokens");
  await expect(tokens).toBeVisible();

  await tokens.getByLabel("Name").fill(name);
  await tokens.getByTestId("token-create").click();
  await expect(tokens.getByTestId("token-error")).toHaveText("Pick at least one scope.");

  // By keyboard: the scope's box, then Enter in the name field.
  await tokens.getByRole("checkbox", { name: "tasks:read" }).focus();
  await page.keyboard.press("Space");
  await tokens.getByLabel("Name").press("Enter");
  const value = await tokens.getByTestId("token-value").inputValue();
  expect(value).toMatch(/^deft_[A-Za-z0-9_-]{40,}$/);
  const row = tokens.getByTestId("token").filter({ hasText: name });
  await expect(row).toHaveAttribute("data-state", "active");
  await expect(row).toContainText("tasks:read");
  await expect(row).toContainText("never used");
  await docScreenshot(page, "api-tokens");

  expect(await status(request, value, "/api/tasks")).toBe(200);
  expect(await status(request, value, "/api/secrets")).toBe(403);

  // Shown once: after "Done", and after reopening, the value is nowhere on the page.
  await tokens.getByRole("button", { name: "Done" }).click();
  await expect(tokens.getByTestId("token-made")).toHaveCount(0);
  await page.keyboard.press("Escape");
  await page.getByTestId("open-settings").click();
  const again = page.getByTestId("settings").getByTestId("tokens");
  const listed = again.getByTestId("token").filter({ hasText: name });
  await expect(listed).toContainText("last used");
  expect(await page.content()).not.toContain(value);

  await listed.getByRole("button", { name: `Revoke the token ${name}` }).click();
  await expect(listed).toHaveAttribute("data-state", "revoked");
  await expect(listed.getByRole("button", { name: /Revoke/ })).toHaveCount(0);
  expect(await status(request, value, "/api/tasks")).toBe(401);
});
