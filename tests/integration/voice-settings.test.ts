import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts, businesses } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import type { FakeRealtime } from "../fakes/openai-realtime";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";

let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;
let owner: ReturnType<typeof httpClient>;
let businessId: number;

beforeAll(async () => {
  ({ app, realtime, close } = await startAppWithFakes({ realtime: { audioSpeed: 10 } }));
  const [demo] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  businessId = demo!.id;
  await app.services.db.insert(accounts).values({
    businessId,
    name: "Voice Owner",
    email: "voice-owner@example.com",
    passwordHash: await hashPassword("voice settings password"),
    mustChangePassword: false,
  });
  owner = httpClient(app.url);
  expect((await owner.postJson("/api/auth/login", { email: "voice-owner@example.com", password: "voice settings password" })).status).toBe(
    200,
  );
});

afterAll(() => close?.());

const business = async () => (await app.services.db.select().from(businesses).where(eq(businesses.id, businessId)))[0]!;

describe("voice settings", () => {
  it("saves voice, speed, language and creativity within the spec's ranges; the confirmation calls use them", async () => {
    const bad = await owner.postJson("/api/voice/settings", { voice: "nova", speed: 2.5, temperature: 0.05, language: "pt-BR" });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { fields: Record<string, string[]>; title: string };
    expect(body.title).toBe("Failed to save settings");
    expect(Object.keys(body.fields).sort()).toEqual(["creativity", "language", "speed", "voice"]);
    expect((await owner.postJson("/api/voice/settings", { voice: "ash", speed: 1.25, temperature: 0.8, language: "en-US" })).status).toBe(
      400,
    );

    const saved = await owner.postJson("/api/voice/settings", { voice: "ash", speed: 1.2, temperature: 0.5, language: "es-ES" });
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { title: string; message: string }).message).toBe("New settings will apply to upcoming calls");
    const row = await business();
    expect(row).toMatchObject({
      confirmationVoice: "ash",
      voiceSpeed: 1.2,
      voiceCreativity: 0.5,
      voiceLocale: "es-ES",
      confirmationLanguage: "es",
    });
  });

  it("the page's form saves too, and shows field errors without JavaScript", async () => {
    const page = await owner.get("/voice-settings");
    expect(page.status).toBe(200);
    const bad = await owner.postForm("/voice-settings", { voice: "ash", speed: "9", language: "en-US", creativity: "0.8", text: "hi" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Enter a speed from 0.5 to 2");
    const good = await owner.postForm("/voice-settings", {
      voice: "coral",
      speed: "0.9",
      language: "ar-SA",
      creativity: "0.7",
      text: "hi",
    });
    expect(good.status).toBe(302);
    expect(await business()).toMatchObject({
      confirmationVoice: "coral",
      voiceSpeed: 0.9,
      voiceLocale: "ar-SA",
      confirmationLanguage: "ar",
    });
  });

  it("reads the test text with the chosen voice and speed: real audio from the text-to-speech model", async () => {
    const response = await owner.postJson("/api/speech/synthesize", {
      text: "Hello, this is your assistant.",
      voice: "ash",
      speed: 1.5,
      language: "en-US",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("audio/mpeg");
    const audio = new Uint8Array(await response.arrayBuffer());
    expect(audio.byteLength).toBeGreaterThan(100);
    const request = realtime.speechRequests.at(-1)!;
    expect(request.body).toMatchObject({ input: "Hello, this is your assistant.", voice: "ash", speed: 1.5, response_format: "mp3" });
    // Without JavaScript the form posts the same fields, and the browser plays the answer.
    const form = await owner.postForm(
      "/api/speech/synthesize",
      { text: "Hola", voice: "coral", speed: "1", language: "es-ES", creativity: "0.8" },
      { tokenFrom: "/voice-settings" },
    );
    expect(form.headers.get("Content-Type")).toBe("audio/mpeg");
    const empty = await owner.postJson("/api/speech/synthesize", { text: " ", voice: "ash", speed: 1 });
    expect(empty.status).toBe(400);
  });

  it("belongs to the signed-in owner only", async () => {
    const stranger = httpClient(app.url);
    expect((await stranger.postJson("/api/voice/settings", { voice: "ash", speed: 1, temperature: 0.8, language: "en-US" })).status).toBe(
      401,
    );
    expect((await stranger.postJson("/api/speech/synthesize", { text: "hi", voice: "ash", speed: 1 })).status).toBe(401);
    expect((await stranger.get("/voice")).headers.get("Location")).toBe("/voice-settings");
    expect((await stranger.get("/voice-settings")).status).toBe(401);
  });
});
