// Tests of the fake OpenAI server's REST endpoints themselves, with plain fetch: what it refuses
// must be what the real API refuses, in the same error shape, or code that only works against a
// lenient fake would fail in production.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "./openai-realtime";
import { silentMp3 } from "./openai-rest";

let fake: FakeRealtime;

beforeAll(async () => {
  fake = await startFakeRealtime();
});
afterAll(() => fake?.close());
afterEach(() => {
  fake.clearRestScripts();
  fake.restProblems.length = 0;
});

const auth = () => ({ authorization: `Bearer ${fake.apiKey}` });
const postJson = (path: string, body: unknown, headers: Record<string, string> = auth()) =>
  fetch(`${fake.url}${path}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });

async function expectError(response: Response, status: number, match: { message?: RegExp; param?: string | null; code?: string | null }) {
  expect(response.status).toBe(status);
  const body = await response.json();
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  if (match.message) expect(body.error.message).toMatch(match.message);
  if (match.param !== undefined) expect(body.error.param).toBe(match.param);
  if (match.code !== undefined) expect(body.error.code).toBe(match.code);
  return body.error;
}

const hello = { model: "gpt-4.1-mini", messages: [{ role: "user", content: "hi" }] };

describe("authentication and models", () => {
  it("refuses a missing key (code null) and a wrong key (invalid_api_key), as the API does", async () => {
    await expectError(await postJson("/chat/completions", hello, {}), 401, { message: /didn't provide an API key/, code: null });
    const wrong = await expectError(await postJson("/chat/completions", hello, { authorization: "Bearer sk-wrong-key" }), 401, {
      code: "invalid_api_key",
    });
    expect(wrong.message).toContain("sk-*****-key");
  });

  it("GET /v1/models/{id}: a known model, or 404 model_not_found", async () => {
    const found = await fetch(`${fake.url}/models/gpt-4.1-mini`, { headers: auth() });
    expect(await found.json()).toMatchObject({ id: "gpt-4.1-mini", object: "model", owned_by: "system" });
    await expectError(await fetch(`${fake.url}/models/gpt-9000`, { headers: auth() }), 404, { code: "model_not_found" });
  });
});

describe("POST /v1/chat/completions", () => {
  it("answers in the chat.completion shape, the default reply without a script", async () => {
    const response = await postJson("/chat/completions", hello);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBeTruthy();
    const body = await response.json();
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "gpt-4.1-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "Okay.", refusal: null }, finish_reason: "stop", logprobs: null }],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    });
    expect(body.id).toMatch(/^chatcmpl-/);
  });

  it("refuses unknown models, non-chat models, unknown arguments and bad roles", async () => {
    await expectError(await postJson("/chat/completions", { ...hello, model: "gpt-9000" }), 404, { code: "model_not_found" });
    await expectError(await postJson("/chat/completions", { ...hello, model: "gpt-4o-mini-tts" }), 404, { message: /not a chat model/ });
    await expectError(await postJson("/chat/completions", { ...hello, foo: 1 }), 400, {
      message: /Unrecognized request argument supplied: foo/,
    });
    await expectError(await postJson("/chat/completions", { ...hello, messages: [] }), 400, { code: "empty_array" });
    await expectError(await postJson("/chat/completions", { ...hello, messages: [{ role: "bot", content: "x" }] }), 400, {
      param: "messages[0].role",
      code: "invalid_value",
    });
    await expectError(await postJson("/chat/completions", { ...hello, temperature: 3 }), 400, { code: "decimal_above_max_value" });
    await expectError(await postJson("/chat/completions", { ...hello, tool_choice: "auto" }), 400, { param: "tool_choice" });
  });

  it("checks tool messages against the tool_calls before them", async () => {
    const call = { id: "call_1", type: "function", function: { name: "f", arguments: "{}" } };
    const tools = [{ type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } }];
    const base = [{ role: "user", content: "hi" }];
    await expectError(
      await postJson("/chat/completions", { ...hello, tools, messages: [...base, { role: "tool", tool_call_id: "call_1", content: "x" }] }),
      400,
      {
        message: /must be a response to a preceeding message with 'tool_calls'/,
      },
    );
    await expectError(
      await postJson("/chat/completions", {
        ...hello,
        tools,
        messages: [
          ...base,
          { role: "assistant", content: null, tool_calls: [call] },
          { role: "tool", tool_call_id: "call_2", content: "x" },
        ],
      }),
      400,
      { message: /'call_2' not found/ },
    );
    await expectError(
      await postJson("/chat/completions", {
        ...hello,
        tools,
        messages: [...base, { role: "assistant", content: null, tool_calls: [call] }, { role: "user", content: "?" }],
      }),
      400,
      { message: /did not have response messages: call_1/ },
    );
    const ok = await postJson("/chat/completions", {
      ...hello,
      tools,
      messages: [
        ...base,
        { role: "assistant", content: null, tool_calls: [call] },
        { role: "tool", tool_call_id: "call_1", content: "done" },
      ],
    });
    expect(ok.status).toBe(200);
    await expectError(
      await postJson("/chat/completions", { ...hello, tools: [{ type: "function", function: { name: "bad name" } }] }),
      400,
      {
        param: "tools[0].function.name",
      },
    );
  });

  it("scripts tool calls, and reports a tool call the request cannot take", async () => {
    const tools = [{ type: "function", function: { name: "book", parameters: { type: "object" } } }];
    fake.scriptChat([{ tool: "book", arguments: { day: "Tuesday" } }]);
    const body = await (await postJson("/chat/completions", { ...hello, tools })).json();
    expect(body.choices[0].finish_reason).toBe("tool_calls");
    expect(body.choices[0].message.content).toBeNull();
    expect(body.choices[0].message.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_/), type: "function", function: { name: "book", arguments: '{"day":"Tuesday"}' } },
    ]);

    fake.scriptChat([{ tool: "cancel", arguments: {} }]);
    await expectError(await postJson("/chat/completions", { ...hello, tools }), 400, { code: "fake_script_mismatch" });
    expect(fake.restProblems[0]).toMatch(/tool 'cancel'.*no function tool of that name/);
  });
});

describe("POST /v1/audio/transcriptions", () => {
  const webm = new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, ...new Array(60).fill(0)]);
  const form = (fields: Record<string, string>, file?: { bytes: Uint8Array; name: string }) => {
    const data = new FormData();
    for (const [key, value] of Object.entries(fields)) data.append(key, value);
    if (file) data.append("file", new Blob([Buffer.from(file.bytes)], { type: "audio/webm" }), file.name);
    return fetch(`${fake.url}/audio/transcriptions`, { method: "POST", headers: auth(), body: data });
  };

  it("answers {text} with the scripted transcript, or plain text", async () => {
    fake.scriptTranscripts(["first", "second"]);
    const json = await form({ model: "whisper-1" }, { bytes: webm, name: "a.webm" });
    expect(await json.json()).toMatchObject({ text: "first", usage: { type: "duration" } });
    const text = await form({ model: "gpt-4o-transcribe", response_format: "text" }, { bytes: webm, name: "a.webm" });
    expect(await text.text()).toBe("second\n");
  });

  it("refuses a missing file, an unsupported model, a wrong extension and bytes that are not audio", async () => {
    await expectError(await form({ model: "gpt-4o-mini-transcribe" }), 400, { message: /field required/ });
    await expectError(await form({ model: "gpt-4.1-mini" }, { bytes: webm, name: "a.webm" }), 400, { param: "model" });
    await expectError(await form({ model: "gpt-4o-mini-transcribe" }, { bytes: webm, name: "a.txt" }), 400, {
      message: /Invalid file format/,
    });
    await expectError(await form({ model: "gpt-4o-mini-transcribe" }, { bytes: new Uint8Array(10), name: "a.webm" }), 400, {
      param: "file",
    });
  });
});

describe("POST /v1/audio/speech", () => {
  it("answers audio/mpeg frames, longer for slower speech", async () => {
    const normal = await postJson("/audio/speech", { model: "gpt-4o-mini-tts", input: "Hello there", voice: "alloy" });
    expect(normal.status).toBe(200);
    expect(normal.headers.get("content-type")).toBe("audio/mpeg");
    const bytes = new Uint8Array(await normal.arrayBuffer());
    expect([...bytes.subarray(0, 4)]).toEqual([0xff, 0xf3, 0x44, 0xc4]);
    expect(bytes.length % 96).toBe(0);
    const slow = await postJson("/audio/speech", { model: "tts-1", input: "Hello there", voice: "onyx", speed: 0.5 });
    expect((await slow.arrayBuffer()).byteLength).toBeGreaterThan(bytes.length);
    expect(silentMp3(48).length).toBe(192);
  });

  it("refuses unknown voices, speeds outside 0.25–4, instructions for tts-1 and unknown models", async () => {
    const speak = (extra: object) => postJson("/audio/speech", { model: "gpt-4o-mini-tts", input: "Hi", voice: "alloy", ...extra });
    await expectError(await speak({ voice: "darth" }), 400, { param: "voice", code: "invalid_value" });
    await expectError(await speak({ speed: 0.1 }), 400, { param: "speed", code: "decimal_below_min_value" });
    await expectError(await speak({ speed: 4.5 }), 400, { param: "speed", code: "decimal_above_max_value" });
    await expectError(await speak({ model: "tts-1", instructions: "calm" }), 400, { param: "instructions" });
    await expectError(await speak({ model: "tts-9" }), 404, { code: "model_not_found" });
    expect(fake.speechRequests.at(-1)).toMatchObject({ status: 404, bytes: 0 });
  });
});
