// The fake Twilio's IncomingPhoneNumbers (the account's own numbers) through the real `twilio`
// SDK, only its base URL moved as the app does: Twilio's paging followed page by page, fetch,
// update of the voice and messaging URLs, and Twilio's errors.
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTwilio, type FakeTwilio } from "./twilio";
import { RedirectingClient } from "~/providers/telephony.server";

let fake: FakeTwilio;
let client: twilio.Twilio;
const numbers = ["+15005550006", "+14155550101", "+14155550102", "+14155550103", "+14155550104"];

beforeAll(async () => {
  fake = await startFakeTwilio({
    ownedNumbers: [numbers[0]!],
    incomingNumbers: numbers.map((phoneNumber, i) => ({ phoneNumber, ...(i === 4 ? { voice: false } : {}) })),
  });
  client = twilio(fake.accountSid, fake.authToken, { httpClient: new RedirectingClient(fake.url) });
});
afterAll(async () => {
  await fake?.close();
});

async function failure(call: () => Promise<unknown>) {
  try {
    await call();
  } catch (error) {
    return error as twilio.RestException;
  }
  throw new Error("expected the call to fail");
}

describe("IncomingPhoneNumbers through the real SDK", () => {
  it("lists every number across pages, as the SDK follows next_page_uri", async () => {
    const listed = await client.incomingPhoneNumbers.list({ pageSize: 2 });
    expect(listed.map((n) => n.phoneNumber)).toEqual(numbers);
    expect(listed[0]).toMatchObject({
      sid: expect.stringMatching(/^PN[0-9a-f]{32}$/),
      accountSid: fake.accountSid,
      friendlyName: "(500) 555-0006",
      capabilities: { voice: true, sms: true, mms: false, fax: false },
      voiceUrl: null,
      smsUrl: "",
    });
    expect(listed[4]!.capabilities.voice).toBe(false);
    const pages = fake.requests.filter((r) => r.path.endsWith("/IncomingPhoneNumbers.json"));
    expect(pages.map((r) => r.params.Page ?? "0")).toEqual(["0", "1", "2"]);
    expect(pages.slice(1).every((r) => typeof r.params.PageToken === "string")).toBe(true);
  });

  it("answers one page as Twilio does: the paging fields, next_page_uri null on the last page", async () => {
    const page = await client.incomingPhoneNumbers.page({ pageSize: 3 });
    expect(page.instances).toHaveLength(3);
    expect(page.nextPageUrl).toMatch(/IncomingPhoneNumbers\.json\?PageSize=3&Page=1&PageToken=PAPN/);
    const next = await page.nextPage();
    expect(next!.instances.map((n) => n.phoneNumber)).toEqual(numbers.slice(3));
    expect(next!.nextPageUrl).toBeUndefined();
  });

  it("sets a number's voice and messaging URLs, and shows them on fetch and list", async () => {
    const sid = fake.incomingNumber(numbers[1]!)!.sid;
    const updated = await client.incomingPhoneNumbers(sid).update({
      voiceUrl: "https://app.example/webhooks/twilio/voice/inbound",
      voiceMethod: "POST",
      smsUrl: "https://app.example/webhooks/twilio/messages",
      smsMethod: "POST",
    });
    expect(updated).toMatchObject({ voiceUrl: "https://app.example/webhooks/twilio/voice/inbound", voiceMethod: "POST" });
    expect((await client.incomingPhoneNumbers(sid).fetch()).smsUrl).toBe("https://app.example/webhooks/twilio/messages");
    expect(fake.incomingNumbers.get(sid)!.updates[0]).toMatchObject({ VoiceUrl: "https://app.example/webhooks/twilio/voice/inbound" });
    await client.incomingPhoneNumbers(sid).update({ voiceUrl: "", smsUrl: "" });
    expect(fake.incomingNumber(numbers[1]!)).toMatchObject({ voiceUrl: "", smsUrl: "" });
    expect(fake.warnings).toEqual([]);
  });

  it("refuses an unknown SID (404 20404), a bad URL (400 21402) and a bad method (400 21200)", async () => {
    const unknown = await failure(() => client.incomingPhoneNumbers("PN" + "0".repeat(32)).fetch());
    expect(unknown).toMatchObject({ status: 404, code: 20404 });
    const sid = fake.incomingNumber(numbers[2]!)!.sid;
    const badUrl = await failure(() => client.incomingPhoneNumbers(sid).update({ voiceUrl: "not a url" }));
    expect(badUrl).toMatchObject({ status: 400, code: 21402 });
    const badMethod = await failure(() => client.incomingPhoneNumbers(sid).update({ smsMethod: "PUT" }));
    expect(badMethod).toMatchObject({ status: 400, code: 21200 });
    expect(fake.incomingNumber(numbers[2]!)!.voiceUrl).toBeNull();
  });
});
