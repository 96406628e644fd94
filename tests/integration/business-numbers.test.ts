import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBusiness } from "#models/businesses";
import { accounts, businesses, businessNumbers, textOptOuts } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import en from "~/locales/en";
import { startAppWithFakes, type AppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";

// A number per business (issue 48), the owner's side: /dashboard/phone lists the Twilio account's
// numbers, connecting one points its voice and messaging URLs at Sakina (seen at the fake Twilio),
// one number belongs to one business, and the receptionist's settings are checked field by field.
const CALLER_ID = "+15005550006";
const SALON_NUMBER = "+14155550101";
const OTHER_NUMBER = "+14155550102";
const PASSWORD = "business numbers password";

let env: AppWithFakes<{ twilio: { ownedNumbers: string[]; incomingNumbers: { phoneNumber: string }[] } }>;
let salonOwner: ReturnType<typeof httpClient>;
let otherOwner: ReturnType<typeof httpClient>;
let salonId: number;
let otherId: number;

beforeAll(async () => {
  env = await startAppWithFakes({
    twilio: { ownedNumbers: [CALLER_ID], incomingNumbers: [CALLER_ID, SALON_NUMBER, OTHER_NUMBER].map((phoneNumber) => ({ phoneNumber })) },
  });
  const db = env.services.db;
  const [demo] = await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  salonId = demo!.id;
  const registered = await registerBusiness(db, {
    name: "Other Studio",
    ownerName: "Other Owner",
    email: "numbers-other-studio@example.com",
    phone: "+442079460958",
    industry: "beauty",
  });
  otherId = ("created" in registered ? registered.created : registered.existing).id;
  const passwordHash = await hashPassword(PASSWORD);
  await db.insert(accounts).values([
    { businessId: salonId, name: "Salon Owner", email: "numbers-salon@example.com", passwordHash, mustChangePassword: false },
    { businessId: otherId, name: "Other Owner", email: "numbers-other@example.com", passwordHash, mustChangePassword: false },
  ]);
  salonOwner = await signIn("numbers-salon@example.com");
  otherOwner = await signIn("numbers-other@example.com");
});

afterAll(async () => {
  await env?.close();
});

async function signIn(email: string) {
  const client = httpClient(env.url);
  expect((await client.postJson("/api/auth/login", { email, password: PASSWORD })).status).toBe(200);
  return client;
}

const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
const t = en.phoneNumber;
const sidOf = (phone: string) => env.twilio.incomingNumber(phone)!.sid;
const page = async (client: ReturnType<typeof httpClient>, query = "") => (await client.get(`/dashboard/phone${query}`)).text();
const rowOf = async (businessId: number) =>
  (await env.services.db.select().from(businessNumbers).where(eq(businessNumbers.businessId, businessId)))[0];
const validSettings = {
  intent: "save-number-settings",
  receptionistMode: "outside_hours",
  transferNumber: "+44 20 7946 0959",
  transferWithinHours: "on",
  maxConcurrentCalls: "3",
  maxCallsPerCallerPerDay: "4",
};

describe("the business's own number", () => {
  it("offers the account's numbers, never the platform's own caller ID", async () => {
    const html = await page(salonOwner);
    expect(html).toContain(sidOf(SALON_NUMBER));
    expect(html).toContain(sidOf(OTHER_NUMBER));
    expect(html).not.toContain(sidOf(CALLER_ID));
    expect(textOf(html)).toContain(t.chooseTitle);
    // Posting the platform's number anyway is refused beside the list.
    const refused = await salonOwner.postForm("/dashboard/phone", { intent: "connect-number", numberSid: sidOf(CALLER_ID) });
    expect(refused.status).toBe(400);
    expect(textOf(await refused.text())).toContain(t.notInAccount);
    expect(env.twilio.incomingNumber(CALLER_ID)!.updates).toEqual([]);
  });

  it("connecting a number points its voice and messaging URLs at Sakina", async () => {
    const connected = await salonOwner.postForm("/dashboard/phone", { intent: "connect-number", numberSid: sidOf(SALON_NUMBER) });
    expect(connected.status).toBe(302);
    expect(connected.headers.get("location")).toBe("/dashboard/phone?done=number-connected");
    expect(env.twilio.incomingNumber(SALON_NUMBER)).toMatchObject({
      voiceUrl: `${env.url}/webhooks/twilio/voice/inbound`,
      voiceMethod: "POST",
      smsUrl: `${env.url}/webhooks/twilio/messages`,
      smsMethod: "POST",
      // An inbound call's end (which frees the business's line) comes only through the number's callback.
      statusCallback: `${env.url}/webhooks/twilio/voice/inbound/status`,
      statusCallbackMethod: "POST",
    });
    expect(await rowOf(salonId)).toMatchObject({ phoneNumber: SALON_NUMBER, providerSid: sidOf(SALON_NUMBER), receptionistMode: "always" });
    const html = textOf(await page(salonOwner, "?done=number-connected"));
    expect(html).toContain(t.savedConnected);
    expect(html).toContain("+1 415 555 0101");
    // The forwarding steps, with the number in the carrier codes.
    expect(html).toContain(`**61*${SALON_NUMBER}#`);
    expect(html).toContain("*714155550101");
    expect(env.twilio.warnings).toEqual([]);
  });

  it("a STOP texted to the connected number is the business's opt-out, not the platform's", async () => {
    const customer = "+14155550177";
    const answer = await env.twilio.sendSms({
      from: customer,
      to: SALON_NUMBER,
      body: "STOP",
      url: env.twilio.incomingNumber(SALON_NUMBER)!.smsUrl,
    });
    expect(answer.status).toBe(200);
    const optOuts = await env.services.db.select().from(textOptOuts).where(eq(textOptOuts.phone, customer));
    expect(optOuts.map((row) => row.scope)).toEqual([`business:${salonId}`]);
  });

  it("a number connected to one business cannot be connected by another", async () => {
    const offered = await page(otherOwner);
    expect(offered).not.toContain(sidOf(SALON_NUMBER));
    expect(offered).toContain(sidOf(OTHER_NUMBER));
    const before = env.twilio.incomingNumber(SALON_NUMBER)!.updates.length;
    const taken = await otherOwner.postForm("/dashboard/phone", { intent: "connect-number", numberSid: sidOf(SALON_NUMBER) });
    expect(taken.status).toBe(400);
    const html = await taken.text();
    expect(textOf(html)).toContain(t.taken);
    expect(html).toMatch(/<fieldset[^>]*aria-describedby="phone-number-error"/);
    expect(env.twilio.incomingNumber(SALON_NUMBER)!.updates).toHaveLength(before);
    expect(await rowOf(otherId)).toBeUndefined();
    expect((await rowOf(salonId))!.phoneNumber).toBe(SALON_NUMBER);
  });

  it("tells every bad setting beside its field in one answer, never a 500, and saves good ones", async () => {
    const bad = await salonOwner.postForm("/dashboard/phone", {
      intent: "save-number-settings",
      receptionistMode: "sometimes",
      transferNumber: "+44 909 876 5432",
      maxConcurrentCalls: "0",
      maxCallsPerCallerPerDay: "99",
    });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    const text = textOf(html);
    expect(text).toContain(en.dialling.premium);
    expect(text).toContain(t.modeInvalid);
    expect(text).toContain("Enter a whole number from 1 to 10.");
    expect(text).toContain("Enter a whole number from 1 to 50.");
    expect(html).toMatch(/id="phone-transfer"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="phone-transfer"/);
    // What the owner typed stays in the field.
    expect(html).toContain('value="+44 909 876 5432"');

    for (const [transferNumber, message] of [
      ["12345", en.dialling.invalid],
      ["call me", en.dialling.invalid],
      [SALON_NUMBER, t.transferIsOwnNumber],
      ["+1 800 555 0100", en.dialling.unroutable],
    ] as const) {
      const refused = await salonOwner.postForm("/dashboard/phone", { ...validSettings, transferNumber });
      expect(refused.status, transferNumber).toBe(400);
      expect(textOf(await refused.text()), transferNumber).toContain(message);
    }
    expect(await rowOf(salonId)).toMatchObject({ transferNumber: null, maxConcurrentCalls: 2, maxCallsPerCallerPerDay: 5 });

    const saved = await salonOwner.postForm("/dashboard/phone", validSettings);
    expect(saved.status).toBe(302);
    expect(await rowOf(salonId)).toMatchObject({
      receptionistMode: "outside_hours",
      transferNumber: "+442079460959",
      transferWithinHours: true,
      maxConcurrentCalls: 3,
      maxCallsPerCallerPerDay: 4,
    });
    // The checkbox unticked is sent as nothing.
    const { transferWithinHours: _, ...unticked } = validSettings;
    expect((await salonOwner.postForm("/dashboard/phone", unticked)).status).toBe(302);
    expect((await rowOf(salonId))!.transferWithinHours).toBe(false);
  });

  it("another owner cannot change or disconnect the business's number", async () => {
    const before = await rowOf(salonId);
    const settings = await otherOwner.postForm("/dashboard/phone", { ...validSettings, maxConcurrentCalls: "10" });
    expect(settings.status).toBe(400);
    expect(textOf(await settings.text())).toContain(t.noNumber);
    const disconnect = await otherOwner.postForm("/dashboard/phone", { intent: "disconnect-number" });
    expect(disconnect.status).toBe(302);
    const anonymous = httpClient(env.url);
    expect(
      (await anonymous.postForm("/dashboard/phone", { ...validSettings, maxConcurrentCalls: "10" }, { tokenFrom: "/contact" })).status,
    ).toBe(403);
    expect(await rowOf(salonId)).toEqual(before);
    expect(env.twilio.incomingNumber(SALON_NUMBER)!.voiceUrl).toBe(`${env.url}/webhooks/twilio/voice/inbound`);
  });

  it("disconnects after a confirmation step, clearing only the URLs that still point at Sakina", async () => {
    const first = textOf(await page(salonOwner));
    expect(first).toContain(t.disconnect);
    expect(first).not.toContain(t.confirmYes);
    const confirm = await page(salonOwner, "?confirm=disconnect");
    expect(textOf(confirm)).toContain(t.confirmYes);
    expect(confirm).toContain('name="intent" value="disconnect-number"');
    // Someone pointed its texts elsewhere in Twilio's console since: that stays.
    env.twilio.incomingNumber(SALON_NUMBER)!.smsUrl = "https://elsewhere.example/sms";
    const gone = await salonOwner.postForm(
      "/dashboard/phone",
      { intent: "disconnect-number" },
      { tokenFrom: "/dashboard/phone?confirm=disconnect" },
    );
    expect(gone.status).toBe(302);
    expect(gone.headers.get("location")).toBe("/dashboard/phone?done=number-disconnected");
    expect(env.twilio.incomingNumber(SALON_NUMBER)).toMatchObject({
      voiceUrl: "",
      smsUrl: "https://elsewhere.example/sms",
      statusCallback: "",
    });
    expect(await rowOf(salonId)).toBeUndefined();
    // Free again for any business.
    expect(await page(otherOwner)).toContain(sidOf(SALON_NUMBER));
  });

  it("refuses a number the account no longer has, and odd input, keeping nothing", async () => {
    const number = env.twilio.incomingNumber(OTHER_NUMBER)!;
    env.twilio.incomingNumbers.delete(number.sid);
    try {
      const refused = await otherOwner.postForm("/dashboard/phone", { intent: "connect-number", numberSid: number.sid });
      expect(refused.status).toBe(400);
      expect(textOf(await refused.text())).toContain(t.notInAccount);
      expect(await rowOf(otherId)).toBeUndefined();
    } finally {
      env.twilio.incomingNumbers.set(number.sid, number);
    }
    for (const numberSid of ["", "PN123", "'; drop table business_numbers; --", "PN" + "g".repeat(32)]) {
      const odd = await otherOwner.postForm("/dashboard/phone", { intent: "connect-number", numberSid });
      expect(odd.status, numberSid).toBe(400);
      expect(textOf(await odd.text())).toContain(t.chooseNumber);
    }
  });

  it("two owners choosing one number at once: one connects it, the other is told it is taken", async () => {
    const sid = sidOf(OTHER_NUMBER);
    const before = env.twilio.incomingNumber(OTHER_NUMBER)!.updates.length;
    const answers = await Promise.all(
      [salonOwner, otherOwner].map((client) => client.postForm("/dashboard/phone", { intent: "connect-number", numberSid: sid })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([302, 400]);
    const loser = answers.find((answer) => answer.status === 400)!;
    expect(textOf(await loser.text())).toContain(t.taken);
    const rows = await env.services.db.select().from(businessNumbers).where(eq(businessNumbers.providerSid, sid));
    expect(rows).toHaveLength(1);
    expect(env.twilio.incomingNumber(OTHER_NUMBER)!.updates).toHaveLength(before + 1);
  });
});
