import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCall } from "#models/calls";
import { businesses, calls as callsTable } from "#models/schema";
import { settingsSchema } from "~/features/business/dashboard.server";
import { confirmationVoices } from "~/features/business/signup/industries";
import { translatorFor } from "~/platform/i18n.server";
import type { FakeRealtime } from "../fakes/openai-realtime";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { waitFor } from "../support/wait";
import { queueTestCall } from "../support/queue-call";

// The fake Realtime server refuses a voice the real model does not have (as the API does, with an
// invalid_value error). Every voice the owner can pick must be accepted on save and then speak.
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, realtime, close } = await startAppWithFakes({ twilio: true, realtime: { audioSpeed: 20 } }));
});

afterAll(() => close?.());

const settings = { phone: "+12125550100", timeZone: "UTC", minimumNoticeMinutes: "60", defaultLanguage: "en", confirmationLanguage: "en" };

describe("confirmation call voices", () => {
  it("accepts on save every voice it offers and refuses the text-to-speech-only ones", async () => {
    const schema = settingsSchema(await translatorFor("en"), ["US", "GB"]);
    for (const voice of confirmationVoices) expect(schema.safeParse({ ...settings, confirmationVoice: voice }).success).toBe(true);
    for (const voice of ["fable", "onyx", "nova"]) {
      const result = schema.safeParse({ ...settings, confirmationVoice: voice });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe("Choose a voice from the list.");
    }
  });

  it("speaks with every offered voice: the realtime session takes it without an error", async () => {
    const [business] = await app.services.db.select().from(businesses);
    for (const [index, voice] of confirmationVoices.entries()) {
      await app.services.db.update(businesses).set({ confirmationVoice: voice });
      realtime.script([{ say: "Hello, this is a voice check.", tool: "end_call", arguments: { reason: "done" } }], index);
      const call = await queueTestCall(app.services, {
        purpose: "test",
        // A number per voice: one number may be called only three times a day.
        to: `+121255502${String(index).padStart(2, "0")}`,
        language: "en",
        voice,
        businessId: business!.id,
      });
      const session = await realtime.waitForSession(index, 20_000);
      await realtime.waitForServerEvent(index, "session.updated", undefined, 20_000);
      expect(session.session.audio.output.voice).toBe(voice);
      expect(session.errors).toEqual([]);
      await waitFor(async () => ((await findCall(app.services.db, call.id))?.status === "completed" ? true : null), {
        what: `the ${voice} call to end`,
        timeoutMs: 20_000,
      });
    }
    const placed = await app.services.db.select().from(callsTable);
    expect(placed.filter((c) => c.status === "completed")).toHaveLength(confirmationVoices.length);
  });
});
