// Browser tests of the console against a real `deft serve` and the scripted model server, in
// Debian's Chromium (never a downloaded browser). One run at a time on the server: serial.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "./e2e",
  globalSetup: "./e2e/global-setup.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [["list"]],
  outputDir: "./test-results",
  use: {
    launchOptions: { executablePath: process.env.DEFT_CHROMIUM || "/usr/bin/chromium" },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  // Every spec on a laptop's screen; the main flows (and the layout checks) again on a phone's,
  // where the sidebar is a drawer (helpers.ts `nav`, `openSidebar`) and screenshots end in -narrow.
  projects: [
    { name: "wide", use: { viewport: { width: 1280, height: 800 } } },
    {
      name: "narrow",
      use: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
      testMatch: /\/(auth|chat|runs|run-history|tasks|task-steps|step-keyboard|layout|run-to-here|retention|notifications|task-versions|webhooks|fleet)\.spec\.ts$/,
    },
  ],
});
