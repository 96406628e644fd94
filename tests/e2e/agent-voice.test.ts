import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { mulawToLinear, silence, speech } from "../fakes/media-stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { axeViolations, describeViolations, launchBrowser, newVisitor, watchStates } from "../support/browser";
import { startServer, type RunningServer } from "../support/server";
import { waitFor } from "../support/wait";

vi.setConfig({ testTimeout: 120_000 });

let realtime: FakeRealtime;
let server: RunningServer;
/** The same, but its realtime model refuses every session (a model that is not a realtime one): the page falls back to recorded turns. */
let fallback: RunningServer;
let browser: Browser;

/**
 * What Chromium's fake microphone plays, over and over: two seconds of silence, then a second of
 * synthetic speech (a voice-like sound a turn detector hears), as a 16-bit 8 kHz WAV file.
 */
async function callerRecording() {
  const mulaw = Buffer.concat([silence(2000), speech(1000)]);
  const wav = Buffer.alloc(44 + mulaw.length * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + mulaw.length * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(mulaw.length * 2, 40);
  mulaw.forEach((byte, i) => wav.writeInt16LE(mulawToLinear(byte), 44 + i * 2));
  const file = path.join(os.tmpdir(), `sakina-caller-${process.pid}.wav`);
  await writeFile(file, wav);
  return file;
}

beforeAll(async () => {
  realtime = await startFakeRealtime({ audioSpeed: 10 });
  const microphone = await callerRecording();
  [server, fallback, browser] = await Promise.all([
    startServer({ OPENAI_API_KEY: realtime.apiKey, OPENAI_BASE_URL: realtime.url, SEED_DEMO_DATA: "false" }),
    startServer(
      { OPENAI_API_KEY: realtime.apiKey, OPENAI_BASE_URL: realtime.url, OPENAI_REALTIME_MODEL: "gpt-4o-mini", SEED_DEMO_DATA: "false" },
      { allowStderr: [/web call \d+: the realtime model failed \(connection error: Unexpected server response: 404\)/] },
    ),
    // Chromium's fake microphone (playing the caller's recording) and an automatic "allow" for the permission prompt.
    launchBrowser({
      extraArgs: [
        "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream",
        `--use-file-for-fake-audio-capture=${microphone}`,
      ],
    }),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fallback?.stop();
  await realtime?.close();
});

async function startConversation(context: BrowserContext, name: string, on: RunningServer = server): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${on.url}/call`);
  await page.getByLabel("اسمك").fill(name);
  await page.getByLabel("رقم الهاتف").nth(1).fill("0501234598");
  await page.getByRole("button", { name: "ابدأ المكالمة الآن" }).click();
  await page.getByRole("heading", { name: /في مكالمة مع/ }).waitFor();
  return page;
}

describe("the Saudi agent in voice", () => {
  it("talks live: the microphone streams to the agent, whose voice plays in the page, and what was said joins the conversation", async () => {
    // Not newVisitor's context: this one keeps the app's CSP, which must let the page load its audio worklet and open the stream.
    const context = await browser.newContext({ locale: "ar", extraHTTPHeaders: { "Accept-Language": "ar" } });
    await watchStates(context, { javaScript: true });
    await context.grantPermissions(["microphone"], { origin: server.url });
    const refused: string[] = [];
    context.on("weberror", (error) => refused.push(error.error().message));
    const page = await startConversation(context, "Faisal");
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    const index = realtime.sessions.length;
    realtime.setAudioSpeed(1);
    realtime.script(
      [
        { say: "هلا فيصل! معك مساعد سكينة الذكي، وش أقدر أخدمك فيه اليوم؟" },
        { transcriptOfCaller: "أبغى أحجز موعد" },
        { say: "أبشر، أي يوم يناسبك؟" },
      ],
      index,
    );
    await page.getByRole("button", { name: "صوت", exact: true }).click();
    const mic = page.getByRole("button", { name: "الميكروفون", exact: true });
    await mic.click();
    const session = await realtime.waitForSession(index, 10_000);
    // The agent's audio arrives and plays: the page says it is speaking.
    await page.getByRole("status").filter({ hasText: "الموظف يتحدث" }).waitFor({ timeout: 15_000 });
    expect(session.session.audio).toMatchObject({ input: { format: { type: "audio/pcm", rate: 24000 } } });
    // The microphone streams: the model hears the caller speak and stop, answers, and the words
    // join the conversation on the page.
    await waitFor(() => (session.audioIn.bytes > 48 * 1000 ? true : null), {
      what: "a second of the microphone at the model",
      timeoutMs: 15_000,
    });
    await page.getByText("أبغى أحجز موعد").waitFor({ timeout: 20_000 });
    await page.getByText("أبشر، أي يوم يناسبك؟").waitFor({ timeout: 20_000 });
    expect(session.serverEvents.filter((e) => e.type === "response.output_audio.delta").length).toBeGreaterThan(10);
    expect(describeViolations(await axeViolations(page))).toBe("");

    // Muting sends silence; back to text ends the voice and frees the microphone.
    await mic.click();
    expect(await mic.getAttribute("aria-pressed")).toBe("false");
    await page.getByRole("button", { name: "نص", exact: true }).click();
    await page.getByLabel("رسالتك").waitFor();
    await waitFor(() => (realtime.sessions[index]!.closed ? true : null), { what: "the model session to end with the voice" });
    expect(refused).toEqual([]);
    realtime.setAudioSpeed(10);
    await context.close();
  });

  it("falls back to recorded turns when the live voice is unavailable: records the caller, shows the transcript and the reply, and plays the reply's speech", async () => {
    // Not newVisitor's context: this one keeps the app's CSP, which must let the reply play from a blob: address.
    const context = await browser.newContext({ locale: "ar", extraHTTPHeaders: { "Accept-Language": "ar" } });
    await watchStates(context, { javaScript: true });
    await context.grantPermissions(["microphone"], { origin: fallback.url });
    // Counts what the page's recorder has captured, so the test stops recording once it holds audio.
    await context.addInitScript(() => {
      const Recorder = window.MediaRecorder;
      const recorded = window as unknown as { recordedBytes: number };
      recorded.recordedBytes = 0;
      window.MediaRecorder = class extends Recorder {
        constructor(...args: ConstructorParameters<typeof MediaRecorder>) {
          super(...args);
          this.addEventListener("dataavailable", (event) => (recorded.recordedBytes += event.data.size));
        }
      };
    });
    const refused: string[] = [];
    context.on("weberror", (error) => refused.push(error.error().message));
    const page = await startConversation(context, "Khalid", fallback);
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
    // The live voice is tried first; the model refuses it, and the page says so and offers recordings.
    await mic.click();
    await page.getByRole("alert").filter({ hasText: "الصوت المباشر غير متاح الآن" }).waitFor({ timeout: 15_000 });
    await page.getByText("اضغط على الميكروفون وتحدّث، ثم اضغط عليه مرة أخرى للإرسال.").waitFor();
    await mic.click();
    await page.getByText("جارٍ التسجيل").waitFor();
    expect(await mic.getAttribute("aria-pressed")).toBe("true");
    // Recording until the recorder has handed the page audio: twice the 1000 bytes the transcription check below needs.
    await page.waitForFunction(() => (window as unknown as { recordedBytes: number }).recordedBytes >= 2000, undefined, {
      timeout: 20_000,
    });
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
      delete (window as { AudioWorkletNode?: unknown }).AudioWorkletNode;
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
