import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { webCalls } from "#models/schema";
import type { FakeRealtime } from "../fakes/openai-realtime";
import { startAppInProcess } from "../support/app-in-process";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { expectLog } from "../support/console";
import { connectBrowserVoice, pcmAudio } from "../support/browser-voice";
import { httpClient } from "../support/http-client";
import { waitFor } from "../support/wait";

let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, realtime, close } = await startAppWithFakes({
    realtime: { audioSpeed: 10 },
    env: { TRUST_PROXY: "1", SEED_DEMO_DATA: "false" },
  }));
});

afterAll(() => close?.());

let visitor = 0;
const client = () => httpClient(app.url, { forwardedFor: `203.0.113.${++visitor}` });
const text = (html: string) => html.replace(/<[^>]+>/g, "");

/** A small "recording": the WebM (EBML) magic number the speech model checks, then some bytes. */
function recording(bytes = 4000, type = "audio/webm;codecs=opus") {
  const audio = new Uint8Array(bytes);
  audio.set([0x1a, 0x45, 0xdf, 0xa3]);
  for (let i = 4; i < bytes; i++) audio[i] = (i * 31) & 0xff;
  return new Blob([audio], { type });
}

async function startConversation(browser: ReturnType<typeof client>) {
  const started = await browser.postForm("/call", { intent: "start_chat", name: "Huda", phone: "0501234567" });
  expect(started.status).toBe(302);
  const page = started.headers.get("Location")!.replace("#chat", "");
  return { page, token: new URL(page, app.url).searchParams.get("chat")! };
}

function voiceForm(token: string, audio: Blob | null = recording()) {
  const form = new FormData();
  form.set("token", token);
  if (audio) form.set("audio", audio, "recording.webm");
  return form;
}

const messagesOf = async (token: string) => {
  const id = Number(token.split(".")[0]);
  const [row] = await app.services.db.select().from(webCalls).where(eq(webCalls.id, id));
  return row!.messages;
};

describe("the web call in voice", () => {
  it("transcribes the recording in Arabic, answers it as a text turn and speaks the reply (voice ash, MP3)", async () => {
    const browser = client();
    const { page, token } = await startConversation(browser);
    realtime.scriptTranscripts(["السلام عليكم، أبغى أحجز موعد بكرة"]);
    realtime.scriptChat([{ say: "وعليكم السلام! أكيد، أي وقت يناسبك بكرة؟" }]);
    const response = await browser.postMultipart("/api/conversation/voice", voiceForm(token), { tokenFrom: page });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { transcript: string; reply: string; audio: string; mimeType: string };
    expect(body.transcript).toBe("السلام عليكم، أبغى أحجز موعد بكرة");
    expect(body.reply).toBe("وعليكم السلام! أكيد، أي وقت يناسبك بكرة؟");
    expect(body.mimeType).toBe("audio/mpeg");
    const mp3 = Buffer.from(body.audio, "base64");
    expect(mp3.length).toBeGreaterThan(96);
    expect([...mp3.subarray(0, 2)]).toEqual([0xff, 0xf3]);

    const transcription = realtime.transcriptionRequests.at(-1)!;
    expect(transcription.fields.language).toBe("ar");
    expect(transcription.file).toMatchObject({ name: "audio.webm", type: "audio/webm", bytes: 4000 });
    const speech = realtime.speechRequests.at(-1)!;
    expect(speech.status).toBe(200);
    expect(speech.body).toMatchObject({ input: body.reply, voice: "ash", speed: 1 });
    const chat = realtime.chatRequests.at(-1)!.body!.messages as { role: string; content: string }[];
    expect(chat.at(-1)).toEqual({ role: "user", content: body.transcript });

    expect((await messagesOf(token)).map((m) => [m.role, m.text])).toEqual([
      ["user", body.transcript],
      ["agent", body.reply],
    ]);
    const after = text(await (await browser.get(page)).text());
    expect(after).toContain(body.transcript);
    expect(after).toContain(body.reply);
  });

  it("refuses a recording with no words in it, in Arabic, and keeps nothing", async () => {
    const browser = client();
    const { page, token } = await startConversation(browser);
    realtime.scriptTranscripts([" … "]);
    const chats = realtime.chatRequests.length;
    const response = await browser.postMultipart("/api/conversation/voice", voiceForm(token), { tokenFrom: page });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: string }).error).toBe(
      "لم نتمكن من سماع أي كلام في التسجيل. يُرجى التحدث مرة أخرى بالقرب من الميكروفون.",
    );
    expect(realtime.chatRequests.length).toBe(chats);
    expect(await messagesOf(token)).toEqual([]);
  });

  it("answers 404 to a forged or ended conversation, without transcribing", async () => {
    const browser = client();
    const { page, token } = await startConversation(browser);
    const transcriptions = realtime.transcriptionRequests.length;
    const forged = await browser.postMultipart("/api/conversation/voice", voiceForm("1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), {
      tokenFrom: page,
    });
    expect(forged.status).toBe(404);
    expect(((await forged.json()) as { error: string }).error).toBe("انتهت هذه المحادثة أو أنها غير موجودة.");
    await browser.postForm("/call", { intent: "hang_up", token }, { tokenFrom: page });
    const ended = await browser.postMultipart("/api/conversation/voice", voiceForm(token), { tokenFrom: page });
    expect(ended.status).toBe(404);
    expect(realtime.transcriptionRequests.length).toBe(transcriptions);
  });

  it("refuses a missing, too large or unsupported recording in Arabic, and a form without its CSRF token", async () => {
    const browser = client();
    const { page, token } = await startConversation(browser);
    const transcriptions = realtime.transcriptionRequests.length;
    const error = async (response: Response) => ((await response.json()) as { error: string }).error;

    const missing = await browser.postMultipart("/api/conversation/voice", voiceForm(token, null), { tokenFrom: page });
    expect(missing.status).toBe(400);
    expect(await error(missing)).toBe("سجّل رسالة أولًا.");

    // Just over 2 MB of audio: the route's own limit, in Arabic.
    const large = await browser.postMultipart("/api/conversation/voice", voiceForm(token, recording(2 * 1024 * 1024 + 1)), {
      tokenFrom: page,
    });
    expect(large.status).toBe(413);
    expect(await error(large)).toBe("التسجيل طويل جدًا. يُرجى إرسال تسجيل أقصر (2 ميغابايت كحد أقصى).");

    // Far over: refused before the body is read, as every oversized request is.
    const huge = await browser.postMultipart("/api/conversation/voice", voiceForm(token, recording(3 * 1024 * 1024)), {
      tokenFrom: page,
    });
    expect(huge.status).toBe(413);
    expect(await error(huge)).toBeTruthy();

    const video = await browser.postMultipart("/api/conversation/voice", voiceForm(token, recording(4000, "video/webm")), {
      tokenFrom: page,
    });
    expect(video.status).toBe(415);
    expect(await error(video)).toBe("صيغة التسجيل هذه غير مدعومة.");

    const noToken = await fetch(`${app.url}/api/conversation/voice`, {
      method: "POST",
      body: voiceForm(token),
      headers: { Cookie: [...browser.jar].map(([k, v]) => `${k}=${v}`).join("; "), "X-Forwarded-For": "203.0.113.250" },
    });
    expect(noToken.status).toBe(403);

    expect(realtime.transcriptionRequests.length).toBe(transcriptions);
  });

  it("still returns the kept reply, without audio, when only the speech fails", async () => {
    const browser = client();
    const { page, token } = await startConversation(browser);
    // Longer than the speech endpoint takes (4096 characters): it refuses, the turn is already kept.
    const long = "تمام، ".repeat(700).trim();
    realtime.scriptTranscripts(["احكي لي عن كل خدماتكم"]);
    realtime.scriptChat([{ say: long }]);
    const response = await browser.postMultipart("/api/conversation/voice", voiceForm(token), { tokenFrom: page });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ transcript: "احكي لي عن كل خدماتكم", reply: long, audio: null, mimeType: null });
    expect(realtime.speechRequests.at(-1)!.status).toBe(400);
    expect((await messagesOf(token)).map((m) => m.text)).toEqual(["احكي لي عن كل خدماتكم", long]);
  });

  it("answers 502 in Arabic when the language model fails, and keeps nothing", async () => {
    const browser = client();
    const { page, token } = await startConversation(browser);
    realtime.scriptTranscripts(["مرحبا"]);
    realtime.scriptChat([{ fail: 400, message: "fake refusal" }]);
    const response = await browser.postMultipart("/api/conversation/voice", voiceForm(token), { tokenFrom: page });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: string }).error).toBe("خطأ في معالجة رسالتك. يُرجى المحاولة مرة أخرى.");
    expect(await messagesOf(token)).toEqual([]);
  });
});

describe("the web call's live voice, through the realtime bridge the phone calls use", () => {
  const streamUrl = (token: string) => `${app.url.replace(/^http/, "ws")}/web-call-stream/${token.split(".")[0]}`;

  it("streams the microphone as 24 kHz PCM16, plays the agent, cuts the reply where the caller barged in, and keeps one conversation with the typed turns", async () => {
    const browser = client();
    const { page, token } = await startConversation(browser);
    realtime.scriptChat([{ say: "أهلًا هدى، كيف أقدر أخدمك؟" }]);
    expect((await browser.postForm("/call", { intent: "send", token, message: "مرحبا" }, { tokenFrom: page })).status).toBe(302);

    const index = realtime.sessions.length;
    realtime.setAudioSpeed(1);
    realtime.script(
      [
        { say: "هلا والله! أسمعك الحين بالصوت، وش تحتاج؟ أنا هنا أساعدك في المواعيد وفي أي استفسار عن سكينة." },
        { transcriptOfCaller: "أبغى أعرف موعدي" },
        { say: "أبشر" },
      ],
      index,
    );
    const voice = await connectBrowserVoice(streamUrl(token), token);
    const session = await realtime.waitForSession(index, 10_000);
    await realtime.waitForEvent(index, "session.update");
    // The same agent as the phone, in the browser's audio, carrying on the typed conversation.
    expect(session.session.audio).toMatchObject({
      input: { format: { type: "audio/pcm", rate: 24000 }, turn_detection: { type: "server_vad" } },
      output: { format: { type: "audio/pcm", rate: 24000 }, voice: "ash" },
    });
    expect(String(session.session.instructions)).toContain("مرحبا");
    expect((session.session.tools as { name: string }[]).map((t) => t.name)).toEqual(
      expect.arrayContaining(["lookup_booking", "find_business", "available_times", "book_appointment", "end_call"]),
    );

    await waitFor(() => (voice.playedMs() > 600 ? true : null), { what: "some of the greeting to play", timeoutMs: 10_000 });
    voice.say(pcmAudio(600, "speech"));
    voice.say(pcmAudio(700, "silence"));
    const truncate = await realtime.waitForEvent(index, "conversation.item.truncate", undefined, 10_000);
    expect(truncate.audio_end_ms).toBeGreaterThan(300);
    expect(truncate.audio_end_ms).toBeLessThanOrEqual(voice.playedMs() + 100);
    expect(truncate.audio_end_ms).toBeLessThan(voice.receivedMs());
    await waitFor(() => (voice.clears > 0 ? true : null), { what: "the page's unplayed audio to be dropped" });

    // The caller's words and the agent's answer reach the page and the conversation.
    await waitFor(() => (voice.messages.some((m) => m.event === "transcript" && m.text === "أبشر") ? true : null), {
      what: "the agent's answer on the page",
      timeoutMs: 10_000,
    });
    expect(voice.messages.filter((m) => m.event === "transcript").map((m) => [m.role, m.text])).toEqual(
      expect.arrayContaining([
        ["user", "أبغى أعرف موعدي"],
        ["agent", "أبشر"],
      ]),
    );
    const kept = (await messagesOf(token)).map((m) => [m.role, m.text]);
    expect(kept.slice(0, 2)).toEqual([
      ["user", "مرحبا"],
      ["agent", "أهلًا هدى، كيف أقدر أخدمك؟"],
    ]);
    expect(kept).toEqual(expect.arrayContaining([["user", "أبغى أعرف موعدي"]]));
    expect(text(await (await browser.get(page)).text())).toContain("أبغى أعرف موعدي");
    expect(session.errors).toEqual([]);

    voice.close();
    await voice.closed;
    await waitFor(() => (realtime.sessions[index]!.closed ? true : null), { what: "the model session to close with the page's" });
    realtime.setAudioSpeed(10);
  });

  it("refuses a forged token, a second voice at once, and an ended conversation", async () => {
    const browser = client();
    const { page, token } = await startConversation(browser);
    expectLog("warn", /voice stream for web call \d+ refused: bad token/);
    const forged = await connectBrowserVoice(streamUrl(token), `${token.split(".")[0]}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    expect((await forged.closed).code).toBe(4403);

    const sessions = realtime.sessions.length;
    const first = await connectBrowserVoice(streamUrl(token), token);
    await realtime.waitForSession(sessions, 10_000);
    const second = await connectBrowserVoice(streamUrl(token), token);
    expect((await second.closed).code).toBe(4403);
    first.close();
    await first.closed;

    await browser.postForm("/call", { intent: "hang_up", token }, { tokenFrom: page });
    const ended = await connectBrowserVoice(streamUrl(token), token);
    expect((await ended.closed).code).toBe(4403);
    expect(realtime.sessions.length).toBe(sessions + 1);
  });
});

describe("the web call in voice without the AI configured", () => {
  it("answers 503 in Arabic", async () => {
    const bare = await startAppInProcess({ TRUST_PROXY: "1", SEED_DEMO_DATA: "false", OPENAI_API_KEY: "" });
    try {
      const browser = httpClient(bare.url, { forwardedFor: "203.0.113.251" });
      const started = await browser.postJson("/api/calls", { customerName: "Huda", phoneNumber: "0501234567" });
      const { token } = (await started.json()) as { token: string };
      const response = await browser.postMultipart("/api/conversation/voice", voiceForm(token), { tokenFrom: "/call" });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: string }).error).toBe("المساعد الذكي غير مهيّأ على هذا الخادم بعد.");
      expectLog("warn", /web call \d+: the realtime model failed \(not configured\)/);
      // The live voice says so too, with the close code the page reads to offer recorded turns and text.
      const live = await connectBrowserVoice(`${bare.url.replace(/^http/, "ws")}/web-call-stream/${token.split(".")[0]}`, token);
      expect((await live.closed).code).toBe(4503);
    } finally {
      await bare.stop();
    }
  });
});

describe("a web server that stops, with a browser's voice call live", () => {
  it("ends the call and its realtime session at once, even when the page never answers the close", async () => {
    const own = await startAppWithFakes({ realtime: { audioSpeed: 10 }, env: { TRUST_PROXY: "1", SEED_DEMO_DATA: "false" } });
    let stopped = false;
    try {
      const browser = httpClient(own.url, { forwardedFor: "203.0.113.252" });
      const started = await browser.postForm("/call", { intent: "start_chat", name: "Huda", phone: "0501234567" });
      const token = new URL(started.headers.get("Location")!, own.url).searchParams.get("chat")!;
      const socket = new WebSocket(`${own.url.replace(/^http/, "ws")}/web-call-stream/${token.split(".")[0]}`);
      await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
      socket.send(JSON.stringify({ event: "start", start: { customParameters: { token } } }));
      const session = await own.realtime.waitForSession(0, 10_000);
      // A page that has stopped reading its socket (a frozen tab, a dead network): the server's close goes unanswered.
      socket.pause();
      const stopping = Date.now();
      await own.app.stop();
      stopped = true;
      await waitFor(() => (session.closed ? true : null), { what: "the call's realtime session to close", timeoutMs: 5_000 });
      expect(Date.now() - stopping).toBeLessThan(5_000);
      socket.terminate();
    } finally {
      if (stopped) await own.realtime.close();
      else await own.close();
    }
  });
});
