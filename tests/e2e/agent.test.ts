import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { axeViolations, describeViolations, hydrated, launchBrowser, newVisitor } from "../support/browser";
import { startServer, type RunningServer } from "../support/server";
import { waitFor } from "../support/wait";

vi.setConfig({ testTimeout: 120_000 });

let twilio: FakeTwilio;
let realtime: FakeRealtime;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [twilio, realtime] = await Promise.all([startFakeTwilio(), startFakeRealtime({ audioSpeed: 10 })]);
  [server, browser] = await Promise.all([
    startServer({
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
      TWILIO_API_URL: twilio.url,
      OPENAI_API_KEY: realtime.apiKey,
      OPENAI_BASE_URL: realtime.url,
      SEED_DEMO_DATA: "false",
    }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  for (const [sid, call] of twilio?.calls ?? []) {
    if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
  }
  await browser?.close();
  await server?.stop();
  await twilio?.close();
  await realtime?.close();
});

async function expectAccessible(page: Page, javaScript: boolean) {
  const violations = await axeViolations(page, { javaScript });
  expect(describeViolations(violations), page.url()).toBe("");
}

let seq = 10;

for (const javaScript of [false, true]) {
  describe(`the Saudi agent with JavaScript ${javaScript ? "on" : "off"}`, () => {
    it("is an Arabic page; 'call me now' phones the number and says the call started", async () => {
      const context = await newVisitor(browser, { javaScript });
      const page = await context.newPage();
      await page.goto(`${server.url}/call`);
      expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
      expect(await page.locator("html").getAttribute("lang")).toBe("ar");
      await expectAccessible(page, javaScript);
      // An empty number: the spec's message beside the field.
      await page.getByRole("button", { name: "اتصل بي" }).click();
      await page.getByText("رقم الهاتف مطلوب").first().waitFor();
      const local = `05012340${String(seq++).padStart(2, "0")}`;
      await page.getByLabel("رقم الهاتف").first().fill(local);
      await page.getByRole("button", { name: "اتصل بي" }).click();
      const call = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === `+966${local.slice(1)}`), {
        what: "the call",
        timeoutMs: 20_000,
      });
      await twilio.waitForStatus(call.sid, "in-progress", 20_000);
      if (javaScript) {
        await page.getByText("بدأت المكالمة").waitFor({ timeout: 20_000 });
      } else {
        await waitFor(
          async () => {
            await page.reload();
            return (await page.getByText("بدأت المكالمة").count()) > 0 ? true : undefined;
          },
          { what: "the page to say the call started" },
        );
      }
      await expectAccessible(page, javaScript);
      twilio.hangup(call.sid);
      await context.close();
    });

    it("holds a text conversation with the agent", async () => {
      realtime.scriptChat([{ say: "هلا والله! وش أقدر أسوي لك؟" }]);
      const context = await newVisitor(browser, { javaScript });
      const page = await context.newPage();
      await page.goto(`${server.url}/call`);
      await page.getByLabel("اسمك").fill("Abdullah");
      await page.getByLabel("رقم الهاتف").nth(1).fill("0501234599");
      await page.getByRole("button", { name: "ابدأ المكالمة الآن" }).click();
      await page.getByRole("heading", { name: /في مكالمة مع/ }).waitFor();
      // Enter sends only once the page's script handles the box.
      if (javaScript) await hydrated(page);
      const box = page.getByLabel("رسالتك");
      await box.fill("السلام عليكم");
      if (javaScript) await box.press("Enter");
      else await page.getByRole("button", { name: "إرسال" }).click();
      await page.getByText("هلا والله! وش أقدر أسوي لك؟").waitFor({ timeout: 20_000 });
      await expectAccessible(page, javaScript);
      await page.getByRole("button", { name: "إنهاء المكالمة" }).click();
      await page.getByText("انتهت المكالمة.").waitFor();
      await context.close();
    });
  });
}
