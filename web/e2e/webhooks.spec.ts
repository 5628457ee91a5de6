// The settings dialog's webhooks: a webhook without events refused at the form, one made to a
// receiver on loopback — its signing secret shown once, then gone from the page —, "Send a test"
// arriving signed with that secret and listed in its delivery log (payload, answer), a receiver
// that answers 500 retried until the delivery fails and the webhook shows failing, a name that
// looks like markup shown as text, and deleting after a confirmation; at both widths.
import { expect, test, type Page } from "@playwright/test";
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { docScreenshot, login, unique } from "./helpers";

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A webhook receiver on loopback: records each POST, answers `status`. */
async function receiver(): Promise<{ url: string; got: Delivery[]; answer: (status: number) => void; server: Server }> {
  const got: Delivery[] = [];
  let status = 200;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(status, { "Content-Type": "text/plain" });
      res.end(`receiver says ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, got, answer: (s) => (status = s), server };
}

/** Opens the settings dialog once its settings have loaded (it starts again when they arrive,
 * which would clear what was typed before): the webhooks section. */
async function openWebhooks(page: Page) {
  await page.getByTestId("open-settings").click();
  const settings = page.getByTestId("settings");
  await expect(settings.getByRole("button", { name: "Save", exact: true })).toBeEnabled();
  const section = settings.getByTestId("webhooks");
  await expect(section).toBeVisible();
  return section;
}

/** Whether `d` is signed with `secret` (README "Webhooks"). */
function signed(d: Delivery, secret: string): boolean {
  const header = String(d.headers["deft-signature"] ?? "");
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2)));
  const expected = createHmac("sha256", secret).update(`${parts.t}.`).update(d.body).digest("hex");
  return parts.v1 === expected;
}

test("a webhook is made, shows its secret once, sends a signed test, logs it and shows failing", async ({ page }) => {
  const hook = await receiver();
  try {
    page.on("dialog", (d) => void d.accept());
    await login(page);
    const name = unique("ci").replace(/\s+/g, "-");
    const section = await openWebhooks(page);

    await section.getByLabel("Name").fill(name);
    await section.getByLabel("URL").fill(hook.url);
    await section.getByTestId("webhook-create").click();
    await expect(section.getByTestId("webhook-error")).toHaveText("Pick at least one event.");

    await section.getByRole("checkbox", { name: "run.ended", exact: true }).check();
    await section.getByTestId("webhook-create").click();
    const secret = await section.getByTestId("webhook-secret-value").inputValue();
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    const row = section.getByTestId("webhook").filter({ hasText: name });
    await expect(row).toHaveAttribute("data-state", "active");
    await expect(row).toContainText("run.ended");
    await expect(row).toContainText("nothing delivered yet");
    await docScreenshot(page, "webhooks");
    await section.getByRole("button", { name: "Done" }).click();
    await expect(section.getByTestId("webhook-secret")).toHaveCount(0);
    expect(await page.content()).not.toContain(secret);

    // a test: it arrives signed with the secret, and the log shows it delivered
    await row.getByTestId("webhook-test").click();
    await expect.poll(() => hook.got.length).toBe(1);
    expect(hook.got[0].headers["deft-event"]).toBe("ping");
    expect(signed(hook.got[0], secret)).toBe(true);
    await row.getByTestId("webhook-log").click();
    const log = row.getByTestId("webhook-deliveries");
    const first = log.getByTestId("delivery").first();
    await expect(first).toHaveAttribute("data-state", "succeeded");
    await expect(first).toContainText("HTTP 200");
    await first.locator("summary").click();
    await expect(first.getByTestId("delivery-payload")).toContainText('"type": "ping"');
    await expect(first.getByTestId("delivery-answer")).toHaveText("receiver says 200");
    await expect(row).toContainText("last delivery ping succeeded");

    // the receiver fails: retried (three attempts), then failed, and the webhook is failing
    hook.answer(500);
    await row.getByTestId("webhook-test").click();
    await expect(row).toHaveAttribute("data-state", "failing");
    const failed = log.getByTestId("delivery").first();
    await expect(failed).toHaveAttribute("data-state", "failed");
    await expect(failed).toContainText("3/3 attempts");
    await failed.locator("summary").click();
    await expect(failed.getByTestId("delivery-error")).toHaveText("the receiver answered HTTP 500 (only 2xx counts as delivered)");
    expect(hook.got.length).toBe(4);
    await docScreenshot(page, "webhook-deliveries");

    // redelivering once the receiver is back clears the failing state
    hook.answer(200);
    await failed.getByTestId("delivery-redeliver").click();
    await expect(row).toHaveAttribute("data-state", "active");

    await row.getByRole("button", { name: `Delete the webhook ${name}` }).click();
    await expect(row).toHaveCount(0);
  } finally {
    hook.server.close();
  }
});

test("a webhook's name and a refused URL are shown as text", async ({ page }) => {
  page.on("dialog", (d) => void d.accept());
  await login(page);
  const section = await openWebhooks(page);
  const marked = `<img src=x onerror="window.__pwned=1">${Date.now().toString(36)}`;
  await section.getByLabel("Name").fill(marked);
  await section.getByLabel("URL").fill("ftp://example.com/hook");
  await section.getByRole("checkbox", { name: "task_run.ended" }).check();
  await section.getByTestId("webhook-create").click();
  await expect(section.getByTestId("webhook-error")).toContainText("URL: an http:// or https:// address");
  await section.getByLabel("URL").fill("https://hooks.example.com/deft");
  await section.getByTestId("webhook-create").click();
  const row = section.getByTestId("webhook").filter({ hasText: marked });
  await expect(row).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await row.getByRole("button", { name: `Delete the webhook ${marked}` }).click();
  await expect(row).toHaveCount(0);
});
