import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { axeViolations, describeViolations, launchBrowser, newVisitor } from "../support/browser";
import { startServer, type RunningServer } from "../support/server";
import { waitFor } from "../support/wait";

vi.setConfig({ testTimeout: 120_000 });

let realtime: FakeRealtime;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  realtime = await startFakeRealtime({ audioSpeed: 10 });
  [server, browser] = await Promise.all([
    startServer({ OPENAI_API_KEY: realtime.apiKey, OPENAI_BASE_URL: realtime.url, SEED_DEMO_DATA: "false" }),
    // Chromium's fake microphone (a beep) and an automatic "allow" for the permission prompt.
    launchBrowser({ extraArgs: ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"] }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await realtime?.close();
});

async function startConversation(context: BrowserContext, name: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${server.url}/call`);
  await page.getByLabel("اسمك").fill(name);
  await page.getByLabel("رقم الهاتف").nth(1).fill("0501234598");
  await page.getByRole("button", { name: "ابدأ المكالمة الآن" }).click();
  await page.getByRole("heading", { name: /في مكالمة مع/ }).waitFor();
  return page;
}

describe("the Saudi agent in voice", () => {
  it("records the caller, shows the transcript and the reply, and plays the reply's speech", async () => {
    // Not newVisitor's context: this one keeps the app's CSP, which must let the reply play from a blob: address.
    const context = await browser.newContext({ locale: "ar", extraHTTPHeaders: { "Accept-Language": "ar" } });
    await context.grantPermissions(["microphone"], { origin: server.url });
    const refused: string[] = [];
    context.on("weberror", (error) => refused.push(error.error().message));
    const page = await startConversation(context, "Khalid");
    const voice = page.getByRole("button", { name: "صوت", exact: true });
    await voice.click();
    expect(await voice.getAttribute("aria-pressed")).toBe("true");
    // In voice the text box gives way to the microphone.
    expect(await page.getByLabel("رسالتك").count()).toBe(0);
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });

    realtime.scriptTranscripts(["أبغى أعرف مواعيد الدوام"]);
    realtime.scriptChat([{ say: "نشتغل من تسع الصبح إلى تسع الليل، حياك الله." }]);
    const mic = page.getByRole("button", { name: "الميكروفون", exact: true });
    await mic.click();
    await page.getByText("جارٍ التسجيل").waitFor();
    expect(await mic.getAttribute("aria-pressed")).toBe("true");
    await page.waitForTimeout(1200);
    await mic.click();

    await page.getByText("نشتغل من تسع الصبح إلى تسع الليل، حياك الله.").waitFor({ timeout: 20_000 });
    await page.getByText("أبغى أعرف مواعيد الدوام").waitFor();
    const transcription = realtime.transcriptionRequests.at(-1)!;
    expect(transcription.status).toBe(200);
    expect(transcription.file).toMatchObject({ name: "audio.webm", type: "audio/webm" });
    expect(transcription.file!.bytes).toBeGreaterThan(1000);
    await waitFor(() => realtime.speechRequests.find((r) => r.body?.input === "نشتغل من تسع الصبح إلى تسع الليل، حياك الله."), {
      what: "the reply sent to text to speech",
    });
    // The reply's MP3 was played from a blob: address, under the app's CSP (media-src 'self' blob:).
    await page.waitForFunction(
      () => {
        const audio = document.querySelector("audio");
        return Boolean(audio?.src.startsWith("blob:") && (audio.played.length > 0 || !audio.paused));
      },
      undefined,
      { timeout: 10_000 },
    );
    expect(await mic.getAttribute("aria-pressed")).toBe("false");
    expect(refused).toEqual([]);

    // Back to text: the box is there again.
    await page.getByRole("button", { name: "نص", exact: true }).click();
    await page.getByLabel("رسالتك").waitFor();
    await context.close();
  });

  it("says so when the microphone is refused, and when the browser has none", async () => {
    const denied = await newVisitor(browser, { javaScript: true, locale: "ar" });
    await denied.addInitScript(() => {
      navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException("denied", "NotAllowedError"));
    });
    const page = await startConversation(denied, "Mona");
    await page.getByRole("button", { name: "صوت", exact: true }).click();
    await page.getByRole("button", { name: "الميكروفون", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "يُرجى السماح بالوصول إلى الميكروفون للتحدث مع الموظف." }).waitFor();
    expect(describeViolations(await axeViolations(page))).toBe("");
    await denied.close();

    const none = await newVisitor(browser, { javaScript: true, locale: "ar" });
    await none.addInitScript(() => {
      delete (window as { MediaRecorder?: unknown }).MediaRecorder;
    });
    const bare = await startConversation(none, "Reem");
    await bare.getByText("لا يستطيع متصفحك استخدام الميكروفون هنا. يُرجى استخدام المحادثة النصية.").waitFor();
    await bare.getByRole("button", { name: "صوت", exact: true }).click();
    expect(await bare.getByRole("button", { name: "الميكروفون", exact: true }).count()).toBe(0);
    await bare.getByLabel("رسالتك").waitFor();
    await none.close();
  });

  it("has no voice mode without JavaScript", async () => {
    const context = await newVisitor(browser, { javaScript: false, locale: "ar" });
    const page = await startConversation(context, "Saad");
    expect(await page.getByRole("button", { name: "صوت", exact: true }).count()).toBe(0);
    await page.getByLabel("رسالتك").waitFor();
    await context.close();
  });
});
