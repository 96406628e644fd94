import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseEnv } from "~/platform/env.server";
import { startFakeRealtime, type FakeRealtime } from "../../tests/fakes/openai-realtime";
import { AiError, AiNotConfiguredError, createSpeech, createTextModel, MAX_TOOL_ROUNDS, TOOL_TIMEOUT_MS, type ChatTool } from "./ai.server";

// The text and speech models with their real implementation (the OpenAI SDK), pointed at the fake
// OpenAI server only through OPENAI_BASE_URL, as every feature reaches them.
let fake: FakeRealtime;
const env = () => parseEnv({ NODE_ENV: "test", OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url });

beforeAll(async () => {
  fake = await startFakeRealtime({ audioSpeed: Infinity });
});
afterAll(() => fake?.close());
afterEach(() => {
  expect(fake.restProblems).toEqual([]);
  fake.clearRestScripts();
  fake.chatRequests.length = 0;
  fake.transcriptionRequests.length = 0;
  fake.speechRequests.length = 0;
});

const weather: ChatTool = {
  name: "get_weather",
  description: "The weather in a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  run: async (args) => `Sunny in ${String(args.city)}, 24 °C.`,
};

describe("text model", () => {
  it("answers a conversation with the model's text, instructions first as the system message", async () => {
    fake.scriptChat([{ say: "Peace be upon you. How can I help?" }]);
    const reply = await createTextModel(env()).reply({
      instructions: "You are Sakina's assistant.",
      turns: [
        { role: "user", content: "Hello" },
        { role: "assistant", content: "Hi!" },
        { role: "user", content: "Salam" },
      ],
      temperature: 0.3,
    });
    expect(reply).toBe("Peace be upon you. How can I help?");
    expect(fake.chatRequests).toHaveLength(1);
    const body = fake.chatRequests[0]!.body!;
    expect(body).toMatchObject({ model: "gpt-4.1-mini", temperature: 0.3 });
    expect(body.tools).toBeUndefined();
    expect(body.messages).toEqual([
      { role: "system", content: "You are Sakina's assistant." },
      { role: "user", content: "Hello" },
      { role: "assistant", content: "Hi!" },
      { role: "user", content: "Salam" },
    ]);
    expect(fake.chatRequests[0]!.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
  });

  it("runs the tool the model calls with its arguments, gives the output back, and returns the final text", async () => {
    fake.scriptChat([{ tool: "get_weather", arguments: { city: "Riyadh" } }, { say: "It is sunny in Riyadh." }]);
    const run = vi.fn(weather.run);
    const reply = await createTextModel(env()).reply({
      instructions: "Answer briefly.",
      turns: [{ role: "user", content: "Weather in Riyadh?" }],
      tools: [{ ...weather, run }],
    });
    expect(reply).toBe("It is sunny in Riyadh.");
    expect(run).toHaveBeenCalledWith({ city: "Riyadh" });
    expect(fake.chatRequests.map((r) => r.status)).toEqual([200, 200]);
    const first = fake.chatRequests[0]!;
    expect(first.body!.tools).toEqual([
      { type: "function", function: { name: "get_weather", description: weather.description, parameters: weather.parameters } },
    ]);
    expect(first.body!.tool_choice).toBe("auto");
    const call = first.response.choices[0].message.tool_calls[0];
    const messages = fake.chatRequests[1]!.body!.messages;
    expect(messages.slice(-2)).toEqual([
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", tool_call_id: call.id, content: "Sunny in Riyadh, 24 °C." },
    ]);
  });

  it("runs parallel calls, and answers an unknown tool and bad arguments in words", async () => {
    fake.scriptChat([
      {
        tools: [
          { name: "get_weather", arguments: { city: "Dubai" } },
          { name: "get_weather", arguments: { city: "Jeddah" } },
        ],
      },
      { say: "Both sunny." },
    ]);
    const reply = await createTextModel(env()).reply({
      instructions: "x",
      turns: [{ role: "user", content: "Dubai and Jeddah?" }],
      tools: [weather],
    });
    expect(reply).toBe("Both sunny.");
    const outputs = fake.chatRequests[1]!.body!.messages.filter((m: any) => m.role === "tool").map((m: any) => m.content);
    expect(outputs).toEqual(["Sunny in Dubai, 24 °C.", "Sunny in Jeddah, 24 °C."]);
  });

  it("gives a tool's error text to the model instead of failing", async () => {
    fake.scriptChat([{ tool: "get_weather", arguments: { city: "Atlantis" } }, { say: "I could not find that city." }]);
    const failing: ChatTool = {
      ...weather,
      run: async () => {
        throw new Error("no such city: Atlantis");
      },
    };
    const reply = await createTextModel(env()).reply({
      instructions: "x",
      turns: [{ role: "user", content: "Atlantis?" }],
      tools: [failing],
    });
    expect(reply).toBe("I could not find that city.");
    const tool = fake.chatRequests[1]!.body!.messages.at(-1);
    expect(tool).toMatchObject({ role: "tool", content: "Error: no such city: Atlantis" });
  });

  it("gives up on a tool after its timeout and tells the model", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      fake.scriptChat([{ tool: "get_weather", arguments: { city: "Mecca" } }, { say: "The weather service is slow." }]);
      const stuck: ChatTool = {
        ...weather,
        run: () => {
          // The timeout timer is set right after run() is called.
          queueMicrotask(() => vi.advanceTimersByTime(TOOL_TIMEOUT_MS));
          return new Promise<string>(() => {});
        },
      };
      const reply = await createTextModel(env()).reply({ instructions: "x", turns: [{ role: "user", content: "Mecca?" }], tools: [stuck] });
      expect(reply).toBe("The weather service is slow.");
      expect(fake.chatRequests[1]!.body!.messages.at(-1).content).toBe("Error: the tool 'get_weather' took longer than 10 s");
    } finally {
      vi.useRealTimers();
    }
  });

  it(`stops offering tools after ${MAX_TOOL_ROUNDS} rounds, so the model must answer in words`, async () => {
    fake.scriptChat([
      ...Array.from({ length: MAX_TOOL_ROUNDS }, () => ({ tool: "get_weather", arguments: { city: "Medina" } })),
      { say: "Sunny." },
    ]);
    const run = vi.fn(weather.run);
    const reply = await createTextModel(env()).reply({
      instructions: "x",
      turns: [{ role: "user", content: "Medina?" }],
      tools: [{ ...weather, run }],
    });
    expect(reply).toBe("Sunny.");
    expect(run).toHaveBeenCalledTimes(MAX_TOOL_ROUNDS);
    expect(fake.chatRequests.map((r) => r.body!.tool_choice)).toEqual([...Array(MAX_TOOL_ROUNDS).fill("auto"), "none"]);
  });

  it("turns a refused key into a non-transient AiError, and a server error into a transient one", async () => {
    const wrongKey = createTextModel(parseEnv({ NODE_ENV: "test", OPENAI_API_KEY: "sk-wrong-key", OPENAI_BASE_URL: fake.url }));
    const refused = await wrongKey.reply({ instructions: "x", turns: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AiError);
    expect(refused).toMatchObject({ transient: false, message: expect.stringMatching(/^401 Incorrect API key provided/) });
    expect(fake.chatRequests[0]!.response.error.code).toBe("invalid_api_key");

    // The SDK tries a 5xx again once (maxRetries 1): two failures in a row reach the caller.
    fake.scriptChat([{ fail: 500 }, { fail: 500 }]);
    const failed = await createTextModel(env())
      .reply({ instructions: "x", turns: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(AiError);
    expect(failed).toMatchObject({ transient: true });
  });

  it("an unknown chat model is a non-transient AiError", async () => {
    const model = createTextModel(
      parseEnv({ NODE_ENV: "test", OPENAI_API_KEY: fake.apiKey, OPENAI_BASE_URL: fake.url, OPENAI_CHAT_MODEL: "gpt-9000" }),
    );
    const error = await model.reply({ instructions: "x", turns: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AiError);
    expect(error).toMatchObject({ transient: false, message: expect.stringContaining("does not exist") });
  });
});

describe("speech", () => {
  // The first bytes of a WebM (EBML) and an Ogg file, as a browser's MediaRecorder makes them.
  const webm = Uint8Array.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, ...new Array(200).fill(0)]);
  const ogg = Uint8Array.from([...Buffer.from("OggS"), 0, 2, ...new Array(200).fill(0)]);

  it("transcribes an uploaded webm recording", async () => {
    fake.scriptTranscripts(["I would like to book for Tuesday."]);
    const text = await createSpeech(env()).transcribe({ audio: webm, mimeType: "audio/webm;codecs=opus", language: "en" });
    expect(text).toBe("I would like to book for Tuesday.");
    expect(fake.transcriptionRequests[0]).toMatchObject({
      status: 200,
      fields: { model: "gpt-4o-mini-transcribe", language: "en" },
      file: { name: "audio.webm", type: "audio/webm", bytes: webm.length },
    });
  });

  it("transcribes an ogg recording, and refuses a type it cannot name before any request", async () => {
    const speech = createSpeech(env());
    expect(await speech.transcribe({ audio: ogg, mimeType: "audio/ogg" })).toBe("(unscripted speech)");
    expect(fake.transcriptionRequests[0]!.file!.name).toBe("audio.ogg");
    await expect(speech.transcribe({ audio: ogg, mimeType: "text/plain" })).rejects.toMatchObject({ transient: false });
    expect(fake.transcriptionRequests).toHaveLength(1);
  });

  it("a recording that is not audio comes back as a non-transient AiError", async () => {
    const error = await createSpeech(env())
      .transcribe({ audio: new Uint8Array(64), mimeType: "audio/webm" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AiError);
    expect(error).toMatchObject({ transient: false });
    expect(fake.transcriptionRequests[0]!.status).toBe(400);
  });

  it("speaks text as MP3, with the speed kept within the API's 0.25–4", async () => {
    const speech = createSpeech(env());
    const result = await speech.synthesize({
      text: "Your booking is confirmed.",
      voice: "marin",
      speed: 9,
      instructions: "Warm and calm.",
    });
    expect(result.mimeType).toBe("audio/mpeg");
    expect(result.audio).toBeInstanceOf(Uint8Array);
    // An MPEG audio frame sync (11 set bits) right at the start.
    expect(result.audio[0]).toBe(0xff);
    expect(result.audio[1]! & 0xe0).toBe(0xe0);
    expect(fake.speechRequests[0]).toMatchObject({
      status: 200,
      bytes: result.audio.length,
      body: {
        model: "gpt-4o-mini-tts",
        input: "Your booking is confirmed.",
        voice: "marin",
        speed: 4,
        response_format: "mp3",
        instructions: "Warm and calm.",
      },
    });
    await speech.synthesize({ text: "Slowly.", voice: "coral", speed: 0 });
    expect(fake.speechRequests[1]!.body!.speed).toBe(0.25);
  });

  it("a voice the API does not have is a non-transient AiError", async () => {
    const error = await createSpeech(env())
      .synthesize({ text: "Hi", voice: "darth", speed: 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AiError);
    expect(error).toMatchObject({ transient: false, message: expect.stringContaining("Invalid value: 'darth'") });
  });
});

describe("without OPENAI_API_KEY", () => {
  it("says so and throws AiNotConfiguredError without any request", async () => {
    const bare = parseEnv({ NODE_ENV: "test", OPENAI_BASE_URL: fake.url });
    const text = createTextModel(bare);
    const speech = createSpeech(bare);
    expect(text.configured).toBe(false);
    expect(speech.configured).toBe(false);
    await expect(text.reply({ instructions: "x", turns: [] })).rejects.toBeInstanceOf(AiNotConfiguredError);
    await expect(speech.transcribe({ audio: new Uint8Array(1), mimeType: "audio/webm" })).rejects.toBeInstanceOf(AiNotConfiguredError);
    await expect(speech.synthesize({ text: "x", voice: "marin", speed: 1 })).rejects.toBeInstanceOf(AiNotConfiguredError);
    expect(fake.chatRequests.length + fake.transcriptionRequests.length + fake.speechRequests.length).toBe(0);
  });
});
