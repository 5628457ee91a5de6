// A run waiting for approval is seen from everywhere: another tab on another page marks its Chat
// link and its title and, with notifications allowed, shows one — and all of it goes once the
// question is answered.
import { expect, test } from "@playwright/test";
import { lastAnswer, login, send, serverUrl, waitIdle } from "./helpers";

test("an approval waiting on a run started in another tab marks the Chat link and the title, notifies, and clears when answered", async ({ page, context }) => {
  await context.grantPermissions(["notifications"], { origin: serverUrl() });
  // Which notifications the pages make (the browser's own, recorded on their way).
  await context.addInitScript(() => {
    const made: { title: string; body?: string; tag?: string }[] = [];
    (window as unknown as { __notes: typeof made }).__notes = made;
    const Real = window.Notification;
    class Recorded extends Real {
      constructor(title: string, options?: NotificationOptions) {
        made.push({ title, body: options?.body, tag: options?.tag });
        super(title, options);
      }
    }
    window.Notification = Recorded as typeof Notification;
  });
  await login(page);
  const other = await context.newPage();
  await other.goto(`${serverUrl()}/tasks`);
  await expect(other.getByTestId("task-list")).toBeVisible();
  await expect(other.getByTestId("approval-pending")).toHaveCount(0);
  await expect(other).toHaveTitle("deft console");
  // Allowed already: the page does not offer to ask.
  await expect(other.getByTestId("allow-notifications")).toHaveCount(0);

  await send(page, "E2E approve: which kernel is this? (seen from another tab)");
  const step = lastAnswer(page).getByTestId("step");
  await expect(step).toHaveAttribute("data-status", "waiting");

  const mark = other.getByTestId("nav-chat").getByTestId("approval-pending");
  await expect(mark).toBeVisible();
  await expect(mark).toHaveAttribute("title", /run_shell on local/);
  await expect(other).toHaveTitle("⏸ Approval needed · deft console");
  await expect
    .poll(() => other.evaluate(() => (window as unknown as { __notes: { title: string; body?: string }[] }).__notes))
    .toEqual([expect.objectContaining({ title: "deft: a run waits for your approval", body: expect.stringContaining("run_shell on local") })]);
  // The tab that runs it says so in its title too.
  await expect(page).toHaveTitle("⏸ Approval needed · deft console");

  // Another page of that tab shows it as well.
  await other.getByTestId("nav-memory").click();
  await expect(other.getByTestId("nav-chat").getByTestId("approval-pending")).toBeVisible();

  await step.getByRole("button", { name: "Approve" }).click();
  await expect(other.getByTestId("approval-pending")).toHaveCount(0);
  await expect(other).toHaveTitle("deft console");
  await expect(page).toHaveTitle("deft console");
  await waitIdle(page);
  // Notified once for the one question.
  expect(await other.evaluate(() => (window as unknown as { __notes: unknown[] }).__notes.length)).toBe(1);
});
