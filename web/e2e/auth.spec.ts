// Logging in and out.
import { expect, test } from "@playwright/test";
import { docScreenshot, openSidebar, serverUrl } from "./helpers";

test("a wrong password shows the server's error; the right one opens the console", async ({ page }) => {
  await page.goto(serverUrl());
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  await docScreenshot(page, "login");

  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByTestId("login-error")).toHaveText("wrong username or password");
  await expect(page.getByTestId("prompt")).toHaveCount(0);

  await page.getByLabel("Password").fill(process.env.DEFT_E2E_PASSWORD ?? "");
  await page.getByRole("button", { name: "Log in" }).click();
  await expect(page.getByTestId("prompt")).toBeVisible();

  // The session survives a reload, and logging out ends it.
  await page.reload();
  await expect(page.getByTestId("prompt")).toBeVisible();
  await openSidebar(page);
  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  await page.reload();
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
});

test("an unknown path serves the console, and the API refuses a page without a session", async ({ page, request }) => {
  await page.goto(`${serverUrl()}/some/deep/link`);
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible();
  const res = await request.get(`${serverUrl()}/api/conversations`);
  expect(res.status()).toBe(401);
  expect((await res.json()).error).toBeTruthy();
});

test("a page opened while the server is unreachable recovers by itself once it answers", async ({ page }) => {
  // The page sees what a stopped server gives it: every API request fails to connect.
  let down = true;
  await page.route("**/api/**", (route) => (down ? route.abort("connectionrefused") : route.continue()));
  await page.goto(serverUrl());
  await expect(page.getByRole("alert")).toContainText("cannot reach the deft server");
  await expect(page.getByText(/Trying again every \d+ s/)).toBeVisible();
  // The server is back: without a reload or a click, the page goes on to the login.
  down = false;
  await expect(page.getByRole("heading", { name: "Log in" })).toBeVisible({ timeout: 15_000 });
});
