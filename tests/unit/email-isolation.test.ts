import i18next from "i18next";
import { describe, expect, it } from "vitest";
import { customerBookingEmail, ownerBookingEmail } from "#emails/booking";
import ar from "~/locales/ar";
import en from "~/locales/en";

const input = {
  bookingId: 7,
  businessName: "Demo Salon",
  businessAddress: "350 Fifth Avenue, New York",
  serviceName: "Haircut",
  when: "Thursday",
  start: new Date("2027-01-07T15:00:00Z"),
  end: new Date("2027-01-07T15:30:00Z"),
  customerName: "Layla Hassan",
  customerPhone: "+1 212 555 0188",
  customerEmail: "name@example.com",
  notes: "First visit — please be gentle.",
  manageUrl: "https://sakina.example/booking/x",
  dashboardUrl: "https://sakina.example/dashboard",
  reference: "K7M-Q4P",
};

async function translator(lng: "en" | "ar") {
  const i18n = i18next.createInstance();
  await i18n.init({ lng, resources: { en: { translation: en }, ar: { translation: ar } } });
  return i18n.t;
}

describe("what people typed, in an e-mail", () => {
  it("keeps a Latin note's period at its end in an Arabic e-mail (isolated), and adds nothing in an English one", async () => {
    const arabic = ownerBookingEmail(await translator("ar"), "ar", "owner@example.com", input);
    expect(arabic.text).toContain("\u2068First visit — please be gentle.\u2069");
    expect(arabic.text).toContain("\u2068Layla Hassan\u2069");
    expect(arabic.html).toContain("\u2068name@example.com\u2069");
    const english = ownerBookingEmail(await translator("en"), "en", "owner@example.com", input);
    expect(english.text).toContain("First visit — please be gentle.");
    expect(english.text).not.toMatch(/[\u2068\u2069]/);
    // The customer's e-mail isolates the business's name; its calendar file takes the plain text.
    const customer = customerBookingEmail(await translator("ar"), "ar", "name@example.com", { ...input, callPromise: "" });
    expect(customer.text).toContain("\u2068Demo Salon\u2069");
    const ics = String(customer.attachments?.[0]?.content);
    expect(ics).toContain("SUMMARY:Haircut: Demo Salon");
    expect(ics).not.toMatch(/[\u2068\u2069]/);
  });
});
