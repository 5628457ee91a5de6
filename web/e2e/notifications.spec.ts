// Notifications: a task's notify switch in its editor, the bell's live count (at 1,280 and 390 px —
// the bell stays in the top bar while the menu is a drawer), the panel (keyboard, text never HTML),
// mark one and all read, following a notification to its run, and a browser notification once
// "Allow browser notifications" got the permission.
import { expect, test } from "@playwright/test";
import { call, docScreenshot, login, runToEnd, serverUrl, unique } from "./helpers";

/** Wraps the browser's Notification before the console loads: the permission starts as "default",
 * requestPermission grants it (the context granted it for real), and every notification the page
 * constructs is recorded in `window.__shown`. */
function recordNotifications() {
  const Real = window.Notification;
  const shown: { title: string; body?: string }[] = [];
  let permission: NotificationPermission = "default";
  class Recorded extends Real {
    constructor(title: string, options?: NotificationOptions) {
      shown.push({ title, body: options?.body });
      super(title, options);
    }
    static get permission() {
      return permission;
    }
    static async requestPermission() {
      permission = await Real.requestPermission();
      return permission;
    }
  }
  Object.assign(window, { __shown: shown, Notification: Recorded });
}

test("a task's notify steps reach the bell, the list and the browser", async ({ page }) => {
  await page.context().grantPermissions(["notifications"]);
  await page.addInitScript(recordNotifications);
  await login(page);
  const name = unique("Nightly report");
  const said = "<img src=x onerror=alert(1)> disk almost full";
  const made = await call(page, "POST", "/api/tasks", {
    name,
    device: "browser",
    steps: [{ type: "notify", message: said, level: "warning" }],
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  expect(made.body.notify).toEqual({ on_failure: true, on_success: false, on_notify_step: false });
  // Start from nothing unread (other specs' runs may have sent some).
  expect((await call(page, "POST", "/api/notifications/read-all")).status).toBe(200);

  // The editor's switch is saved at once.
  await page.goto(`${serverUrl()}/tasks/${encodeURIComponent(made.body.id)}/edit`);
  const steps = page.getByTestId("notify-on_notify_step");
  await expect(page.getByTestId("notify-on_failure")).toBeChecked();
  await expect(steps).not.toBeChecked();
  await steps.check();
  await expect.poll(async () => (await call(page, "GET", `/api/tasks/${made.body.id}`)).body.notify.on_notify_step).toBe(true);
  await expect(steps).toBeEnabled();
  await page.reload();
  await expect(page.getByTestId("notify-on_notify_step")).toBeChecked();

  // The bell asks the browser's permission.
  const bell = page.getByTestId("notif-bell");
  await expect(bell).toBeVisible();
  await expect(page.getByTestId("notif-count")).toHaveCount(0);
  await bell.click();
  await page.getByTestId("notif-allow").click();
  await expect(page.getByTestId("notif-allow")).toHaveCount(0);
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("notif-panel")).toHaveCount(0);
  await expect(bell).toBeFocused();

  // A run's notify step: the count goes up live, and the browser shows it.
  const first = await runToEnd(page, made.body.id);
  await expect(page.getByTestId("notif-count")).toHaveText("1");
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { __shown: unknown[] }).__shown))
    .toContainEqual({ title: `Task "${name}" says`, body: said });
  const second = await runToEnd(page, made.body.id);
  await expect(page.getByTestId("notif-count")).toHaveText("2");

  // The panel by keyboard: newest first, unread marked, the text as text.
  await bell.focus();
  await page.keyboard.press("Enter");
  const panel = page.getByTestId("notif-panel");
  const items = panel.getByTestId("notif-item");
  await expect(items.first()).toContainText(said);
  await expect(items.first()).toHaveClass(/notif-unread/);
  await expect(panel.locator("img")).toHaveCount(0);
  await expect(items.first().locator("a")).toHaveAttribute("href", `/task-runs/${second}`);
  await expect(items.nth(1).locator("a")).toHaveAttribute("href", `/task-runs/${first}`);
  await docScreenshot(page, "notifications");
  await page.emulateMedia({ colorScheme: "dark" });
  await docScreenshot(page, "notifications-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // Mark one read, then all.
  await items.nth(1).getByTestId("notif-read").click();
  await expect(page.getByTestId("notif-count")).toHaveText("1");
  await expect(items.nth(1)).not.toHaveClass(/notif-unread/);
  await panel.getByTestId("notif-read-all").click();
  await expect(page.getByTestId("notif-count")).toHaveCount(0);
  await expect(items.first()).not.toHaveClass(/notif-unread/);

  // Following one goes to its run.
  await items.first().locator("a").click();
  await expect(page).toHaveURL(new RegExp(`/task-runs/${second}$`));
  await expect(page.getByTestId("notif-panel")).toHaveCount(0);
  await expect(page.getByTestId("notif-bell")).toBeVisible();
});
