import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBooking } from "#models/bookings";
import { businesses, callRefusals } from "#models/schema";
import { checkEmpathyDetails } from "~/features/empathy/empathy.server";
import { translatorFor } from "~/platform/i18n.server";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { waitFor } from "../support/wait";
import { demoOwnerPassword } from "../support/demo-owner";
import { zoneInCallingHours } from "../support/calling-hours";

// One dialling policy on every path that phones a number: bookings, demo calls, the owner's test
// call and the paid call. Every client here comes from one address (127.0.0.1, no proxy trusted).
let twilio: FakeTwilio;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, twilio, close } = await startAppWithFakes({ twilio: true, env: { CALLS_PER_NUMBER_PER_DAY: "3", CALLS_PER_IP_PER_DAY: "5" } }));
  await app.services.db.update(businesses).set({ timeZone: zoneInCallingHours(), minimumNoticeMinutes: 0 });
});

afterAll(() => close?.());

const client = () => httpClient(app.url);

/** Tries `count` bookings of the next free haircut slots for `phone`; the ids of those made, and how many were refused. */
async function bookMany(phone: string, count: number) {
  let refused = 0;
  const services = await (await client().get("/api/booking/services/demo-salon")).json();
  const haircut = services.find((s: { name: string }) => s.name === "Haircut");
  const ids: number[] = [];
  for (let day = 1; day < 30 && ids.length + refused < count; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await client().get(`/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    for (const slot of (Array.isArray(slots) ? slots : []).filter((s: { available: boolean }) => s.available)) {
      if (ids.length + refused >= count) break;
      const response = await client().postJson("/api/booking/create", {
        businessLink: "demo-salon",
        serviceId: haircut.id,
        appointmentDate: `${date}T${slot.time}`,
        customerInfo: { name: "Policy Test", phone },
        requestCall: true,
      });
      // The booking API itself allows five bookings an hour for one number.
      if (response.status === 429) refused += 1;
      else {
        expect(response.status).toBe(201);
        ids.push((await response.json()).booking.id);
      }
    }
  }
  return { ids, refused };
}

const callsTo = (e164: string) => [...twilio.calls.values()].filter((call) => call.params.To === e164);

/** Waits until every booking's confirmation call was either placed or refused. */
async function settled(ids: number[]) {
  return waitFor(
    async () => {
      const rows = await Promise.all(ids.map((id) => findBooking(app.services.db, id)));
      // Placed calls move on (calling, then retry_2 after no answer); refused ones are not_called.
      return rows.every((b) => b && !["queued", "scheduled"].includes(b.callState)) ? rows.map((b) => b!) : null;
    },
    { what: "every confirmation call placed or refused", timeoutMs: 40_000 },
  );
}

describe("the dialling policy", () => {
  it("places at most the allowed calls for eight bookings to one number from one address, and keeps every booking", async () => {
    const victim = "+12125550123";
    twilio.setOutcome(victim, "no-answer");
    const { ids, refused: tooMany } = await bookMany(victim, 8);
    expect(ids.length + tooMany).toBe(8);
    const bookings = await settled(ids);
    expect(callsTo(victim)).toHaveLength(3);
    const notCalled = bookings.filter((b) => b.callState === "not_called");
    expect(notCalled).toHaveLength(ids.length - 3);
    for (const booking of notCalled) expect(["number_cap", "ip_cap"]).toContain(booking.notCalledReason);
    const rows = await app.services.db.select().from(callRefusals);
    expect(rows.filter((r) => r.path === "booking_confirmation" && ["number_cap", "ip_cap"].includes(r.reason))).toHaveLength(
      ids.length - 3,
    );
    // The admin's record never holds the number itself.
    expect(JSON.stringify(rows)).not.toContain("2125550123");

    // Its calls of the day used up, the number is refused when a call is asked for, with the
    // reason, not accepted and dropped at dial time (issue 45.7): here a demo call, from another address.
    const t = await translatorFor("en");
    const demo = await httpClient(app.url, { localAddress: "127.0.0.9" }).postJson("/api/calls/demo", { to: victim });
    expect(demo.status).toBe(400);
    expect((await demo.json()).error).toBe(t("dialling.number_cap"));
    // And the paid call's details step, before any payment is taken.
    const paid = await checkEmpathyDetails(app.services, t, { phone: victim, email: "", language: "en", voice: "female" } as never);
    expect(paid).toEqual({ ok: false, field: "phone", message: t("dialling.number_cap") });
    expect(callsTo(victim)).toHaveLength(3);
  });

  it("refuses +1 900 and a blocked country on every path, with the reason, and records each refusal", async () => {
    const premium = "+19005550100";
    const blocked = "+8613800138000";
    const before = (await app.services.db.select().from(callRefusals)).length;

    // Booking: saved, marked not called with the reason. (A new address: the first test used up 127.0.0.1's bookings.)
    const guest = httpClient(app.url, { localAddress: "127.0.0.5" });
    const services = await (await guest.get("/api/booking/services/demo-salon")).json();
    const haircut = services.find((s: { name: string }) => s.name === "Haircut");
    const ids: number[] = [];
    for (const [index, phone] of [premium, blocked].entries()) {
      for (let day = 40 - 10 * index; day > 0 && ids.length <= index; day--) {
        const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
        const slots = await (await guest.get(`/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
        const slot = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
        if (!slot) continue;
        const response = await guest.postJson("/api/booking/create", {
          businessLink: "demo-salon",
          serviceId: haircut.id,
          appointmentDate: `${date}T${slot.time}`,
          customerInfo: { name: "Policy Test", phone },
          requestCall: true,
        });
        if (response.status === 201) ids.push((await response.json()).booking.id);
      }
    }
    const [premiumBooking, blockedBooking] = await settled(ids);
    expect(premiumBooking).toMatchObject({ callState: "not_called", notCalledReason: "premium" });
    expect(blockedBooking).toMatchObject({ callState: "not_called", notCalledReason: "country" });

    // Demo call: refused with the reason.
    const t = await translatorFor("en");
    const demoPremium = await guest.postJson("/api/calls/demo", { to: premium });
    expect(demoPremium.status).toBe(400);
    expect((await demoPremium.json()).error).toBe(t("demo.premiumRefused"));
    const demoBlocked = await guest.postJson("/api/calls/demo", { to: blocked });
    expect(demoBlocked.status).toBe(400);
    expect((await demoBlocked.json()).error).toBe(t("demo.countryRefused"));

    // The owner's test call from /telephony.
    const owner = httpClient(app.url);
    const password = await demoOwnerPassword(app.url, app.dataDir);
    expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
    for (const [to, reason] of [
      [premium, t("dialling.premium")],
      [blocked, t("dialling.country")],
    ] as const) {
      const response = await owner.postForm("/telephony", { to });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain(reason);
    }

    // The paid call's details step.
    for (const [phone, reason] of [
      [premium, t("empathy.premiumRefused")],
      [blocked, t("empathy.countryRefused")],
    ] as const) {
      const checked = await checkEmpathyDetails(app.services, t, { phone, email: "", language: "en", voice: "female" } as never);
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.message).toBe(reason);
    }

    const rows = (await app.services.db.select().from(callRefusals)).slice(before);
    const seen = new Set(rows.map((r) => `${r.path}:${r.reason}`));
    for (const path of ["booking_confirmation", "demo", "test", "empathy"]) {
      expect(seen).toContain(`${path}:premium`);
      expect(seen).toContain(`${path}:country`);
    }
    expect(callsTo(premium)).toHaveLength(0);
    expect(callsTo(blocked)).toHaveLength(0);
  });

  it("lets the business narrow the countries its confirmation calls go to, from its settings", async () => {
    const owner = httpClient(app.url, { localAddress: "127.0.0.7" });
    const password = await demoOwnerPassword(app.url, app.dataDir);
    expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
    const [business] = await app.services.db.select().from(businesses);
    const settings = {
      intent: "save-settings",
      phone: business!.phone,
      timeZone: business!.timeZone,
      minimumNoticeMinutes: "0",
      defaultLanguage: "en",
      confirmationLanguage: "en",
      confirmationVoice: "alloy",
    };
    const t = await translatorFor("en");
    const invalid = await owner.postForm("/dashboard/settings", { ...settings, callCountries: "GB, XX" });
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain(t("settings.callCountriesInvalid", { allowed: "" }).split(":")[0]);

    expect((await owner.postForm("/dashboard/settings", { ...settings, callCountries: "gb" })).status).toBeLessThan(400);
    expect((await app.services.db.select().from(businesses))[0]!.callCountries).toEqual(["GB"]);
    try {
      // A US customer of a business that calls only the UK: the booking stands, not called, with the reason.
      const guest = httpClient(app.url, { localAddress: "127.0.0.8" });
      const services = await (await guest.get("/api/booking/services/demo-salon")).json();
      const haircut = services.find((s: { name: string }) => s.name === "Haircut");
      let id: number | null = null;
      for (let day = 50; day > 0 && id === null; day--) {
        const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
        const slots = await (await guest.get(`/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
        const slot = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
        if (!slot) continue;
        const response = await guest.postJson("/api/booking/create", {
          businessLink: "demo-salon",
          serviceId: haircut.id,
          appointmentDate: `${date}T${slot.time}`,
          customerInfo: { name: "Country Test", phone: "+12125550177" },
          requestCall: true,
        });
        if (response.status === 201) id = (await response.json()).booking.id;
      }
      const [booking] = await settled([id!]);
      expect(booking).toMatchObject({ callState: "not_called", notCalledReason: "country" });
      expect(callsTo("+12125550177")).toHaveLength(0);
    } finally {
      await owner.postForm("/dashboard/settings", { ...settings, callCountries: "" });
    }
    expect((await app.services.db.select().from(businesses))[0]!.callCountries).toBeNull();
  });
});
