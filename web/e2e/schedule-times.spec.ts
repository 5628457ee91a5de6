// Times as a schedule means them, seen from another zone (the browser here is in Europe/Berlin): a
// cron schedule's next fires in its own zone, named, and in the viewer's, named too; switching a
// task off takes its next run off the list and its schedules' next fires off its page at once.
import { expect, test } from "@playwright/test";
import { call, login, unique } from "./helpers";

test.use({ timezoneId: "Europe/Berlin" });

/** The hour and minute of an ISO time in `zone`, as a 24-hour clock shows it ("02:00"). */
function clock(iso: string, zone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(iso));
}

test("next fires show in the schedule's zone and the viewer's, named; a task switched off shows no next run", async ({ page }) => {
  const name = unique("E2E Shanghai");
  await login(page);
  const made = await call(page, "POST", "/api/tasks", { name, device: "browser", steps: [{ type: "wait", seconds: 1 }] });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const added = await call(page, "POST", `/api/tasks/${made.body.id}/schedules`, { kind: "cron", expr: "0 9 * * *", tz: "Asia/Shanghai" });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const first: string = added.body.next_fires[0];

  await page.goto(`${new URL(page.url()).origin}/tasks/${made.body.id}/schedules`);
  await expect(page.getByTestId("schedule-words")).toHaveText("every day at 09:00 (Asia/Shanghai)");
  const next = page.getByTestId("next-fires");
  await expect(next).toContainText("Next:");
  await expect(next).toContainText("09:00");
  await expect(next).toContainText("Asia/Shanghai");
  await expect(next).not.toContainText(clock(first, "Europe/Berlin"));
  const mine = page.getByTestId("next-fires-local");
  await expect(mine).toContainText(clock(first, "Europe/Berlin"));
  await expect(mine).toContainText("Europe/Berlin");

  // Switched off on its page: its schedule says so instead of listing fires that will not come.
  await page.getByTestId("task-enabled").click();
  await expect(page.getByTestId("task-enabled")).not.toBeChecked();
  await expect(page.getByTestId("next-fires")).toHaveCount(0);
  await expect(page.getByTestId("no-fires")).toHaveText("Off: the task is switched off.");
  await page.getByTestId("task-enabled").click();
  await expect(page.getByTestId("next-fires")).toContainText("Asia/Shanghai");

  // On the list: its next run, until it is switched off there — then none, without a reload.
  await page.getByTestId("nav-tasks").click();
  await page.getByTestId("task-search").fill(name);
  const row = page.getByTestId("task-row");
  await expect(row).toHaveCount(1);
  await expect(row.getByTestId("task-next-run")).toContainText("in ");
  // The list's own refresh (every 10 s) is held: the row must change from the switch's answer.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const list = (url: URL) => url.pathname === "/api/tasks";
  await page.route(
    list,
    async (route) => {
      await held;
      await route.continue();
    },
  );
  const stored = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes("/api/tasks/"));
  await row.getByTestId("task-toggle").click();
  expect((await stored).status()).toBe(200);
  await expect(row.getByTestId("task-toggle")).not.toBeChecked();
  await expect(row.getByTestId("task-next-run")).toHaveText("off");
  release();
  await page.unroute(list);
});
