// Tests of the fake OpenAI Realtime server itself, driven with `ws` the way the app's bridge talks to
// it: Authorization header, GA event names, μ-law audio in 20 ms frames.
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { audioMsForText, mulawSilence, mulawSpeech, startFakeRealtime, type FakeRealtime } from "./openai-realtime";

let fake: FakeRealtime;

beforeAll(async () => {
  fake = await startFakeRealtime({ audioSpeed: 20 });
});
afterAll(async () => {
  await fake?.close();
});

const wsUrl = (path = "/realtime?model=gpt-realtime") => `${fake.url.replace(/^http/, "ws")}${path}`;

interface Client {
  ws: WebSocket;
  index: number;
  events: any[];
  /** performance.now() when each event arrived. */
  arrivals: number[];
  send(event: object): void;
  /** The first event (from position `from` on) of that type matching the predicate; waits if needed. */
  waitFor(type: string, predicate?: (e: any) => boolean, from?: number, timeoutMs?: number): Promise<any>;
  appendAudio(audio: Buffer): void;
  close(): Promise<void>;
}

async function connect(options: { key?: string | null; path?: string } = {}): Promise<Client> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers.Authorization = `Bearer ${options.key ?? fake.apiKey}`;
  const ws = new WebSocket(wsUrl(options.path), { headers });
  const events: any[] = [];
  const arrivals: number[] = [];
  const listeners = new Set<() => void>();
  ws.on("message", (data) => {
    events.push(JSON.parse(String(data)));
    arrivals.push(performance.now());
    for (const l of [...listeners]) l();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const client: Client = {
    ws,
    index: -1,
    events,
    arrivals,
    send: (event) => ws.send(JSON.stringify(event)),
    waitFor(type, predicate, from = 0, timeoutMs = 4000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.slice(from).find((e) => e.type === type && (!predicate || predicate(e)));
          if (!found) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no '${type}' event; got: ${events.map((e) => e.type).join(", ")}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    appendAudio(audio) {
      for (let i = 0; i < audio.length; i += 160)
        ws.send(JSON.stringify({ type: "input_audio_buffer.append", audio: audio.subarray(i, i + 160).toString("base64") }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once("close", () => resolve());
        ws.close();
      }),
  };
  const created = await client.waitFor("session.created");
  client.index = fake.sessions.findIndex((s) => s.id === created.session.id);
  return client;
}

/** The session.update the app sends for a phone call. */
const phoneSession = {
  type: "realtime",
  instructions: "You are the receptionist of Salon Amina.",
  audio: {
    input: {
      format: { type: "audio/pcmu" },
      turn_detection: { type: "server_vad" },
      transcription: { model: "gpt-4o-mini-transcribe" },
    },
    output: { format: { type: "audio/pcmu" }, voice: "cedar" },
  },
  tools: [
    {
      type: "function",
      name: "find_slots",
      description: "Free appointment slots on a day",
      parameters: { type: "object", properties: { date: { type: "string" } }, required: ["date"] },
    },
  ],
  tool_choice: "auto",
};

async function phoneClient(): Promise<Client> {
  const client = await connect();
  client.send({ type: "session.update", session: phoneSession });
  await client.waitFor("session.updated");
  return client;
}

/** Caller says something: `speechMs` of speech then 600 ms of silence, in 20 ms frames. */
function callerSays(client: Client, speechMs = 600) {
  client.appendAudio(Buffer.concat([mulawSilence(100), mulawSpeech(speechMs), mulawSilence(600)]));
}

describe("connection", () => {
  it("refuses a wrong or missing API key with 401 and an OpenAI error body", async () => {
    const attempt = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const ws = new WebSocket(wsUrl(), { headers });
        ws.on("unexpected-response", (_req, res) => {
          let body = "";
          res.on("data", (c: Buffer) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
        });
        ws.on("open", () => reject(new Error("connected with a bad key")));
        ws.on("error", () => {});
      });
    const wrong = await attempt({ Authorization: "Bearer sk-wrong-key-1234" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ type: "invalid_request_error", code: "invalid_api_key" });
    expect(wrong.body.error.message).toMatch(/^Incorrect API key provided: sk-\**1234\./);
    const missing = await attempt({});
    expect(missing.status).toBe(401);
    expect(missing.body.error).toMatchObject({ type: "invalid_request_error", code: null });
    const badPath = await new Promise<number>((resolve) => {
      const ws = new WebSocket(wsUrl("/chat/completions"), { headers: { Authorization: `Bearer ${fake.apiKey}` } });
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("error", () => {});
    });
    expect(badPath).toBe(404);
    expect(fake.rejections.map((r) => r.status)).toEqual([401, 401, 404]);
  });

  it("sends session.created with the API defaults, then applies session.update", async () => {
    const client = await connect();
    const created = client.events[0];
    expect(created).toMatchObject({
      type: "session.created",
      session: {
        type: "realtime",
        model: "gpt-realtime",
        output_modalities: ["audio"],
        tools: [],
        audio: {
          input: { format: { type: "audio/pcm", rate: 24000 }, turn_detection: { type: "server_vad" } },
          output: { format: { type: "audio/pcm", rate: 24000 }, voice: "marin" },
        },
      },
    });
    expect(created.event_id).toMatch(/^event_/);
    expect(created.session.id).toMatch(/^sess_/);

    client.send({ type: "session.update", event_id: "evt_1", session: phoneSession });
    const updated = await client.waitFor("session.updated");
    expect(updated.session).toMatchObject({
      type: "realtime",
      instructions: phoneSession.instructions,
      tools: phoneSession.tools,
      tool_choice: "auto",
      audio: {
        input: {
          format: { type: "audio/pcmu" },
          transcription: { model: "gpt-4o-mini-transcribe" },
          turn_detection: { type: "server_vad", threshold: 0.5, silence_duration_ms: 500, create_response: true, interrupt_response: true },
        },
        output: { format: { type: "audio/pcmu" }, voice: "cedar" },
      },
    });
    const record = fake.sessions[client.index]!;
    expect(record.model).toBe("gpt-realtime");
    expect(record.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(record.session.audio.output.voice).toBe("cedar");
    expect(record.errors).toEqual([]);
    const ids = client.events.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    await client.close();
  });

  it("rejects unknown fields, beta-era fields and bad values with error events, changing nothing", async () => {
    const client = await connect();
    client.send({ type: "session.update", event_id: "evt_bad", session: { type: "realtime", voice: "alloy" } });
    const unknown = await client.waitFor("error");
    expect(unknown).toEqual({
      type: "error",
      event_id: expect.stringMatching(/^event_/),
      error: {
        type: "invalid_request_error",
        code: "unknown_parameter",
        message: "Unknown parameter: 'session.voice'.",
        param: "session.voice",
        event_id: "evt_bad",
      },
    });
    const n = client.events.length;
    client.send({ type: "session.update", session: { type: "conversation" } });
    client.send({ type: "session.update", session: { audio: { input: { format: { type: "audio/pcmu" } } } } });
    client.send({
      type: "session.update",
      session: { type: "realtime", audio: { input: { format: { type: "audio/pcmu", rate: 8000 } } } },
    });
    client.send({ type: "session.update", session: { type: "realtime", instructions: 42 } });
    client.send({ type: "response.audio.delta" });
    await client.waitFor("error", undefined, n + 4);
    const errors = client.events.slice(n).map((e) => e.error);
    expect(errors.map((e) => [e.code, e.param])).toEqual([
      ["invalid_value", "session.type"],
      ["missing_required_parameter", "session.type"],
      ["unknown_parameter", "session.audio.input.format.rate"],
      ["invalid_type", "session.instructions"],
      ["invalid_value", "type"],
    ]);
    expect(errors[4].message).toMatch(/^Invalid value: 'response.audio.delta'. Supported values are: 'session.update', /);
    expect(fake.sessions[client.index]!.session.audio.input.format).toEqual({ type: "audio/pcm", rate: 24000 });
    expect(client.events.some((e) => e.type === "session.updated")).toBe(false);
    await client.close();
  });
});

describe("a caller turn", () => {
  it("detects speech, commits, transcribes from the script and answers with paced μ-law audio", async () => {
    const client = await phoneClient();
    const reply = "Hello, Salon Amina, how can I help?";
    fake.script([{ transcriptOfCaller: "Hi, I'd like a haircut." }, { say: reply }], client.index);
    const spokeAt = performance.now();
    callerSays(client, 600);

    const started = await client.waitFor("input_audio_buffer.speech_started");
    expect(started.audio_start_ms).toBe(0); // speech at 100 ms, minus 300 ms prefix padding
    const stopped = await client.waitFor("input_audio_buffer.speech_stopped");
    expect(stopped.item_id).toBe(started.item_id);
    expect(stopped.audio_end_ms).toBe(100 + 600 + 500);
    const committed = await client.waitFor("input_audio_buffer.committed");
    expect(committed).toMatchObject({ item_id: started.item_id, previous_item_id: null });
    const userItem = await client.waitFor("conversation.item.done", (e) => e.item.id === started.item_id);
    expect(userItem.item).toMatchObject({ type: "message", role: "user", content: [{ type: "input_audio" }] });
    const transcript = await client.waitFor("conversation.item.input_audio_transcription.completed");
    expect(transcript).toMatchObject({ item_id: started.item_id, content_index: 0, transcript: "Hi, I'd like a haircut." });

    const done = await client.waitFor("response.done");
    expect(done.response).toMatchObject({ object: "realtime.response", status: "completed", status_details: null });
    expect(done.response.output).toEqual([
      expect.objectContaining({
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_audio", transcript: reply }],
      }),
    ]);
    expect(done.response.usage.output_token_details.audio_tokens).toBeGreaterThan(0);

    const created = client.events.find((e) => e.type === "response.created");
    const responseId = created.response.id;
    const deltas = client.events.filter((e) => e.type === "response.output_audio.delta");
    const audio = Buffer.concat(deltas.map((d) => Buffer.from(d.delta, "base64")));
    expect(deltas.every((d) => Buffer.from(d.delta, "base64").toString("base64") === d.delta)).toBe(true);
    expect(deltas.every((d) => Buffer.from(d.delta, "base64").length === 160)).toBe(true);
    expect(audio.length).toBe(audioMsForText(reply) * 8);
    expect(audio.some((b) => b !== 0xff && b !== 0x7f)).toBe(true); // audible, not silence
    expect(deltas[0]).toMatchObject({ response_id: responseId, output_index: 0, content_index: 0 });
    const itemId = deltas[0].item_id;
    const words = client.events.filter((e) => e.type === "response.output_audio_transcript.delta").map((e) => e.delta);
    expect(words.join("")).toBe(reply);

    // Paced: 2.1 s of audio at 20× goes out over about 105 ms, from the first delta to the last.
    // The fake cannot send the first before it heard the caller, so the last arrives at least that
    // long after the caller spoke; the arrivals' own spread is only an upper bound, since a busy
    // client reads several frames at once after a stall.
    const lastArrival = client.arrivals[client.events.indexOf(deltas.at(-1))]!;
    expect(lastArrival - spokeAt).toBeGreaterThan(((audioMsForText(reply) - 20) / 20) * 0.8);
    expect(lastArrival - client.arrivals[client.events.indexOf(deltas[0])]!).toBeLessThan(1000);
    const first = client.events.indexOf(deltas[0]);
    const types = client.events
      .slice(client.events.indexOf(created))
      .map((e) => e.type)
      .filter((t) => !t.endsWith(".delta"));
    expect(types).toEqual(
      expect.arrayContaining([
        "response.created",
        "response.output_item.added",
        "conversation.item.added",
        "response.content_part.added",
        "response.output_audio.done",
        "response.output_audio_transcript.done",
        "response.content_part.done",
        "response.output_item.done",
        "conversation.item.done",
        "response.done",
      ]),
    );
    expect(first).toBeGreaterThan(client.events.indexOf(created));
    const tail = types.slice(types.indexOf("response.output_audio.done"));
    expect(tail).toEqual([
      "response.output_audio.done",
      "response.output_audio_transcript.done",
      "response.content_part.done",
      "response.output_item.done",
      "conversation.item.done",
      "response.done",
    ]);
    const transcriptDone = client.events.find((e) => e.type === "response.output_audio_transcript.done");
    expect(transcriptDone).toMatchObject({ item_id: itemId, transcript: reply });

    const record = fake.sessions[client.index]!;
    expect(record.responses).toMatchObject([
      { id: responseId, trigger: "server_vad", status: "completed", audioMs: audioMsForText(reply) },
    ]);
    expect(record.audioIn.appends).toBe(Math.ceil((100 + 600 + 600) / 20));
    expect(record.clientEvents.some((e) => e.type === "input_audio_buffer.append")).toBe(false);
    expect(record.serverEvents.find((e) => e.type === "response.output_audio.delta")).toMatchObject({ delta_bytes: 160 });
    expect(record.errors).toEqual([]);

    // The voice cannot change any more.
    const n = client.events.length;
    client.send({ type: "session.update", session: { type: "realtime", audio: { output: { voice: "alloy" } } } });
    expect((await client.waitFor("error", undefined, n)).error.code).toBe("cannot_update_voice");
    await client.close();
  });

  it("runs a scripted tool call, takes the function output and answers the next response.create", async () => {
    const client = await phoneClient();
    fake.script([{ tool: "find_slots", arguments: { date: "2025-03-14" } }, { say: "We have ten o'clock free." }], client.index);
    callerSays(client);
    const args = await client.waitFor("response.function_call_arguments.done");
    expect(args).toMatchObject({ name: "find_slots", arguments: '{"date":"2025-03-14"}', output_index: 0 });
    expect(args.call_id).toMatch(/^call_/);
    const deltas = client.events.filter((e) => e.type === "response.function_call_arguments.delta");
    expect(deltas.map((d) => d.delta).join("")).toBe(args.arguments);
    const first = await client.waitFor("response.done");
    expect(first.response.status).toBe("completed");
    expect(first.response.output).toEqual([
      expect.objectContaining({ type: "function_call", name: "find_slots", call_id: args.call_id, arguments: args.arguments }),
    ]);

    // An unknown call_id is refused; the right one is recorded.
    let n = client.events.length;
    client.send({ type: "conversation.item.create", item: { type: "function_call_output", call_id: "call_nope", output: "{}" } });
    expect((await client.waitFor("error", undefined, n)).error.param).toBe("item.call_id");
    n = client.events.length;
    client.send({
      type: "conversation.item.create",
      item: { type: "function_call_output", call_id: args.call_id, output: '{"slots":["10:00"]}' },
    });
    const added = await client.waitFor("conversation.item.added", (e) => e.item.type === "function_call_output", n);
    expect(added.previous_item_id).toBe(args.item_id);
    await client.waitFor("conversation.item.done", (e) => e.item.type === "function_call_output", n);
    client.send({ type: "response.create", response: { instructions: "Offer the slots." } });
    const second = await client.waitFor("response.done", (e) => e.response.id !== first.response.id);
    expect(second.response.output[0].content[0].transcript).toBe("We have ten o'clock free.");

    const record = fake.sessions[client.index]!;
    expect(record.functionOutputs).toEqual([
      { call_id: args.call_id, output: '{"slots":["10:00"]}', item_id: added.item.id, name: "find_slots" },
    ]);
    expect(record.toolCalls).toMatchObject([{ name: "find_slots", call_id: args.call_id }]);
    expect(record.responses.map((r) => [r.trigger, r.instructions])).toEqual([
      ["server_vad", phoneSession.instructions],
      ["response.create", "Offer the slots."],
    ]);
    expect(record.conversation.map((i) => i.type)).toEqual(["message", "function_call", "function_call_output", "message"]);
    await client.close();
  });

  it("fails the response when the script calls a tool the session does not have", async () => {
    const client = await connect();
    fake.script([{ tool: "cancel_booking", arguments: {} }], client.index);
    client.send({ type: "response.create" });
    const done = await client.waitFor("response.done");
    expect(done.response).toMatchObject({ status: "failed", status_details: { type: "failed" } });
    expect(fake.sessions[client.index]!.problems[0]).toMatch(/cancel_booking/);
    await client.close();
  });
});

describe("interruptions", () => {
  it("cancels the response when the caller barges in, then truncates the item", async () => {
    const client = await phoneClient();
    fake.script([{ say: "Let me tell you about all of our services, one by one. ".repeat(4) }], client.index);
    client.send({ type: "response.create" });
    const firstDelta = await client.waitFor("response.output_audio.delta");
    callerSays(client, 300);
    const started = await client.waitFor("input_audio_buffer.speech_started");
    const done = await client.waitFor("response.done");
    expect(client.events.indexOf(done)).toBeGreaterThan(client.events.indexOf(started));
    expect(done.response).toMatchObject({ status: "cancelled", status_details: { type: "cancelled", reason: "turn_detected" } });
    expect(done.response.output[0]).toMatchObject({ id: firstDelta.item_id, status: "incomplete" });
    const sent = client.events.filter((e) => e.type === "response.output_audio.delta" && e.response_id === done.response.id).length * 20;
    expect(sent).toBeLessThan(audioMsForText("x".repeat(220)));
    // The caller's turn still gets its own answer afterwards.
    await client.waitFor("response.done", (e) => e.response.id !== done.response.id && e.response.status === "completed");

    // What the caller heard: at most what was sent (on a loaded machine the barge-in can come after one chunk).
    const heard = Math.min(40, sent);
    let n = client.events.length;
    client.send({ type: "conversation.item.truncate", item_id: firstDelta.item_id, content_index: 0, audio_end_ms: heard });
    expect(await client.waitFor("conversation.item.truncated", undefined, n)).toMatchObject({
      item_id: firstDelta.item_id,
      content_index: 0,
      audio_end_ms: heard,
    });
    n = client.events.length;
    client.send({ type: "conversation.item.truncate", item_id: "item_unknown", content_index: 0, audio_end_ms: 40 });
    expect((await client.waitFor("error", undefined, n)).error).toMatchObject({ code: "item_truncate_invalid_item_id", param: "item_id" });
    n = client.events.length;
    client.send({ type: "conversation.item.truncate", item_id: firstDelta.item_id, content_index: 0, audio_end_ms: 999_999 });
    expect((await client.waitFor("error", undefined, n)).error.param).toBe("audio_end_ms");
    expect(fake.sessions[client.index]!.truncations).toEqual([
      { item_id: firstDelta.item_id, content_index: 0, audio_end_ms: heard, audio_ms: sent },
    ]);
    await client.close();
  });

  it("cancels on response.cancel, refuses a second response.create and reports nothing to cancel", async () => {
    const client = await phoneClient();
    fake.script([{ say: "A rather long answer that takes a few seconds to speak." }], client.index);
    client.send({ type: "response.create" });
    await client.waitFor("response.output_audio.delta");
    client.send({ type: "response.create", event_id: "evt_second" });
    const busy = await client.waitFor("error");
    expect(busy.error).toMatchObject({ code: "conversation_already_has_active_response", event_id: "evt_second" });
    client.send({ type: "response.cancel" });
    const done = await client.waitFor("response.done");
    expect(done.response.status_details).toEqual({ type: "cancelled", reason: "client_cancelled" });
    const n = client.events.length;
    client.send({ type: "response.cancel" });
    expect((await client.waitFor("error", undefined, n)).error.code).toBe("response_cancel_not_active");
    client.send({ type: "input_audio_buffer.commit" });
    expect((await client.waitFor("error", undefined, n + 1)).error.code).toBe("input_audio_buffer_commit_empty");
    client.send({ type: "input_audio_buffer.clear" });
    await client.waitFor("input_audio_buffer.cleared");
    await client.close();
  });
});

describe("a slow or silent model", () => {
  /** Events the model sent for its responses' output so far. */
  const output = (client: Client) => client.events.filter((e) => /^response\.(output_|content_part|function_call)/.test(e.type));

  it("a silent step creates the response and sends nothing more until it is cancelled", async () => {
    const client = await phoneClient();
    fake.script([{ silent: true }], client.index);
    client.send({ type: "response.create" });
    await client.waitFor("response.created");
    // Still in progress: a second response is refused, and by then nothing was said.
    client.send({ type: "response.create", event_id: "evt_second" });
    expect((await client.waitFor("error")).error.code).toBe("conversation_already_has_active_response");
    expect(output(client)).toEqual([]);
    client.send({ type: "response.cancel" });
    const done = await client.waitFor("response.done");
    expect(done.response).toMatchObject({ status: "cancelled", output: [] });
    expect(output(client)).toEqual([]);
    await client.close();
  });

  it("a held step speaks once the test releases it", async () => {
    const client = await phoneClient();
    fake.script([{ say: "Sorry, I was thinking.", held: true }], client.index);
    client.send({ type: "response.create" });
    await client.waitFor("response.created");
    client.send({ type: "response.create", event_id: "evt_second" });
    await client.waitFor("error");
    expect(output(client)).toEqual([]);
    fake.release(client.index);
    const done = await client.waitFor("response.done");
    expect(done.response.status).toBe("completed");
    expect(client.events.some((e) => e.type === "response.output_audio.delta")).toBe(true);
    expect(fake.sessions[client.index]!.responses[0]!.transcript).toBe("Sorry, I was thinking.");
    await client.close();
  });
});

describe("a stalled session", () => {
  it("speaks its stallAfter step, then hangs with its socket open: the caller's speech gets no VAD event and no answer", async () => {
    const client = await phoneClient();
    fake.script([{ say: "Hola, soy tu oyente.", stallAfter: true }], client.index);
    client.send({ type: "response.create" });
    await client.waitFor("response.done");
    const sent = client.events.length;
    callerSays(client);
    client.send({ type: "input_audio_buffer.clear" });
    // The fake handles a connection's messages in order: once it has the clear, it has heard the speech.
    await fake.waitForEvent(client.index, "input_audio_buffer.clear");
    expect(client.events.slice(sent)).toEqual([]);
    expect(fake.sessions[client.index]!.closed).toBe(false);
    expect(client.ws.readyState).toBe(WebSocket.OPEN);
    await client.close();
  });
});

describe("benchmark support", () => {
  it("echo mode answers every frame at once with a stamped delta of the same size", async () => {
    const client = await phoneClient();
    fake.setEchoMode(true);
    try {
      client.appendAudio(Buffer.concat([mulawSpeech(60), mulawSilence(40)]));
      await client.waitFor("response.output_audio.delta", (e) => Buffer.from(e.delta, "base64").readUInt32BE(0) === 4);
      const deltas = client.events.filter((e) => e.type === "response.output_audio.delta").map((e) => Buffer.from(e.delta, "base64"));
      expect(deltas.map((d) => [d.length, d.readUInt32BE(0)])).toEqual([0, 1, 2, 3, 4].map((i) => [160, i]));
      expect(deltas[4]!.subarray(4)).toEqual(mulawSilence(20).subarray(4));
      expect(client.events.some((e) => e.type === "input_audio_buffer.speech_started")).toBe(false);
    } finally {
      fake.setEchoMode(false);
    }
    const done = await client.waitFor("response.done");
    expect(done.response.status).toBe("completed");
    expect(fake.sessions[client.index]!.responses[0]).toMatchObject({ trigger: "echo", audioMs: 100 });
    await client.close();
  });

  it("keeps many concurrent sessions apart", async () => {
    const clients = await Promise.all(Array.from({ length: 12 }, () => phoneClient()));
    for (const c of clients) fake.script([{ transcriptOfCaller: `caller ${c.index}` }, { say: `Reply ${c.index}.` }], c.index);
    for (const c of clients) callerSays(c, 300);
    await Promise.all(
      clients.map(async (c) => {
        const done = await c.waitFor("response.done");
        expect(done.response.output[0].content[0].transcript).toBe(`Reply ${c.index}.`);
        expect((await c.waitFor("conversation.item.input_audio_transcription.completed")).transcript).toBe(`caller ${c.index}`);
        const bytes = c.events
          .filter((e) => e.type === "response.output_audio.delta")
          .reduce((n, e) => n + Buffer.from(e.delta, "base64").length, 0);
        expect(bytes).toBe(audioMsForText(`Reply ${c.index}.`) * 8);
      }),
    );
    await Promise.all(clients.map((c) => c.close()));
    await fake.waitForSession(clients.at(-1)!.index);
    expect(clients.every((c) => fake.sessions[c.index]!.errors.length === 0)).toBe(true);
  });

  it("paces audio in real time at speed 1", async () => {
    const client = await phoneClient();
    fake.setAudioSpeed(1);
    try {
      fake.script([{ say: "Hi." }], client.index); // 400 ms of audio
      client.send({ type: "response.create" });
      await client.waitFor("response.done");
    } finally {
      fake.setAudioSpeed(20);
    }
    const deltas = client.events.filter((e) => e.type === "response.output_audio.delta");
    expect(deltas).toHaveLength(20);
    const spread = client.arrivals[client.events.indexOf(deltas.at(-1))]! - client.arrivals[client.events.indexOf(deltas[0])]!;
    expect(spread).toBeGreaterThan(340);
    expect(spread).toBeLessThan(700);
    await client.close();
  });

  it("gives every session the default script, and each session its own copy", async () => {
    fake.script([{ say: "Default greeting." }]);
    try {
      const [a, b] = await Promise.all([phoneClient(), phoneClient()]);
      for (const c of [a!, b!]) {
        c.send({ type: "response.create" });
        expect((await c.waitFor("response.done")).response.output[0].content[0].transcript).toBe("Default greeting.");
        await c.close();
      }
    } finally {
      fake.clearScript();
    }
  });

  it("waits for client events and records closes", async () => {
    const client = await phoneClient();
    client.send({ type: "response.create", response: { instructions: "Greet the caller." } });
    const event = await fake.waitForEvent(client.index, "response.create", (e) => e.response?.instructions === "Greet the caller.");
    expect(event.type).toBe("response.create");
    client.appendAudio(mulawSilence(20));
    expect(await fake.waitForEvent(client.index, "input_audio_buffer.append")).toMatchObject({ audio_bytes: 160 });
    await fake.waitForServerEvent(client.index, "response.done");
    await client.close();
    await expect.poll(() => fake.sessions[client.index]!.closed).toBe(true);
  });
});
