import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listBusinessesForAdmin } from "#models/admin-lists";
import { accounts, bookings, businesses, calls } from "#models/schema";
import de from "~/locales/de";
import en from "~/locales/en";
import { hashPassword } from "~/features/auth/passwords.server";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";
import { bookThroughPage, callPromiseIn } from "../support/book-through-page";
import { linkIn, waitForMail } from "../support/outbox";

let app: Awaited<ReturnType<typeof startAppInProcess>>;

beforeAll(async () => {
  app = await startAppInProcess({});
});
afterAll(async () => {
  await app?.stop();
});

/** The words a visitor can read: the page without its markup, styles and scripts (loader data included). */
function visibleText(html: string) {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");
}

// The providers' variables (the root's data names STRIPE_PUBLISHABLE_KEY on every page: public by design).
const ENV_NAME = /\b(?:TWILIO|OPENAI|VONAGE|PLIVO|TELNYX)_[A-Z_]+|\bAPP_URL\b/;

async function signedInOwner() {
  const [business] = await app.services.db.select().from(businesses).limit(1);
  const email = "providers-owner@example.com";
  const password = "an owner who runs this server";
  await app.services.db
    .insert(accounts)
    .values({
      businessId: business!.id,
      name: "Providers Owner",
      email,
      passwordHash: await hashPassword(password),
      mustChangePassword: false,
    })
    .onConflictDoNothing();
  const client = httpClient(app.url);
  expect((await client.postJson("/api/auth/login", { email, password })).status).toBe(200);
  return client;
}

describe("/providers", () => {
  it("tells the public each provider's status in plain words, and no configuration details anywhere in the page", async () => {
    const response = await httpClient(app.url).get("/providers");
    expect(response.status).toBe(200);
    const html = await response.text();
    // Not in the text, and not in the loader data written into the page for hydration either.
    expect(html).not.toMatch(ENV_NAME);
    expect(html).not.toContain(en.providers.guide);
    const text = visibleText(html);
    expect(text).not.toMatch(/\b[A-Z]+_[A-Z_]+\b/);
    expect(text).toContain(en.look.providers.summary_notSetUp);
    for (const name of ["OpenAI Realtime", "Twilio", "Vonage", "Plivo", "Telnyx"]) expect(text).toContain(name);
    expect(text.split(en.look.providers.plainNotConfigured).length - 1).toBe(5);
    expect(text).toContain(en.look.providers.ownersHint);
  });

  it("shows a signed-in owner the variables to set, each provider's check and the setup guide", async () => {
    const owner = await signedInOwner();
    const response = await owner.get("/providers");
    expect(response.status).toBe(200);
    const text = visibleText(await response.text());
    for (const name of ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "OPENAI_API_KEY", "APP_URL"]) expect(text).toContain(name);
    expect(text).toContain(en.providers.guide);
    expect(text).toContain(en.look.providers.lastCheck);
    expect(text).not.toContain(en.look.providers.ownersHint);
  });
});

describe("/business", () => {
  it("states what the product does and costs, with no percentage statistics", async () => {
    const response = await httpClient(app.url).get("/business");
    expect(response.status).toBe(200);
    const text = visibleText(await response.text());
    expect(text).not.toMatch(/\d\s*[%٪]/);
    for (const fact of [en.look.business.factPriceTitle, en.look.business.factLanguagesTitle, en.look.business.factTimingTitle]) {
      expect(text).toContain(fact);
    }
  });
});

const fill = (text: string, values: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? "");

describe("a free service", () => {
  it('says "Free", never "$0.00", in the booking page\'s list, its confirm step and the owner\'s service list', async () => {
    const list = visibleText(await (await httpClient(app.url).get("/book/demo-salon?lng=en")).text());
    expect(list).toContain(fill(en.services.summary, { minutes: "15", price: en.common.free }));
    expect(list).not.toContain("$0.00");
    const booked = await bookThroughPage(httpClient(app.url), "demo-salon", {
      serviceName: "Consultation",
      phone: "(212) 555-0161",
      email: "free-service@example.com",
    });
    const confirm = visibleText(booked.confirmHtml);
    expect(confirm).toContain(en.common.free);
    expect(confirm).not.toContain("$0.00");
    const owner = await signedInOwner();
    const services = visibleText(await (await owner.get("/dashboard/services?lng=en")).text());
    expect(services).toContain(fill(en.services.summary, { minutes: "15", price: en.common.free }));
    expect(services).not.toContain("$0.00");
  });
});

describe("the booking's promise about the confirmation call, on a server without telephony", () => {
  it("promises no call on the contact and confirm steps, the done page and in the e-mail: the e-mail is the confirmation", async () => {
    const email = "no-call-promise@example.com";
    const booked = await bookThroughPage(httpClient(app.url), "demo-salon", { serviceName: "Haircut", phone: "(212) 555-0162", email });
    const business = "Sakina Demo Salon";
    expect(callPromiseIn(booked.contactHtml)).toBe(fill(en.book.promiseNone, { business }));
    // The phone field's hint does not promise the call the line below it rules out.
    expect(visibleText(booked.contactHtml)).not.toContain(en.book.phoneHint);
    expect(visibleText(booked.contactHtml)).toContain(en.book.phoneHintNoCall);
    expect(callPromiseIn(booked.confirmHtml)).toBe(fill(en.book.promiseNoneEmailed, { business }));
    expect(callPromiseIn(booked.doneHtml)).toBe(fill(en.book.promiseNoneEmailed, { business }));
    const mail = await waitForMail(app.dataDir, email, /Sakina Demo Salon/);
    expect(mail.text.replace(/[\u2068\u2069]/g, "")).toContain(fill(en.book.promiseNoneEmailed, { business }));
    for (const html of [booked.contactHtml, booked.confirmHtml, booked.doneHtml, mail.text]) expect(html).not.toMatch(/within minutes/);
  });
});

describe("forms the server validates", () => {
  it("leave empty required fields to the server (noValidate), whose summary speaks the page's language", async () => {
    const client = httpClient(app.url);
    for (const path of ["/", "/contact", "/login", "/forgot-password", "/get-started", "/subscribe", "/business", "/sign-in"]) {
      const html = await (await client.get(`${path}?lng=de`)).text();
      const forms = [...html.matchAll(/<form\b[^>]*method="post"[^>]*>/g)].map((m) => m[0]);
      expect(forms.length, path).toBeGreaterThan(0);
      for (const form of forms) expect(form, path).toMatch(/novalidate/i);
      // The fields keep saying they are required, for assistive technology.
      if (path !== "/business") expect(html, path).toMatch(/required=""|aria-required="true"/);
    }
    const empty = await client.postForm("/contact?lng=de", { email: "", subject: "", message: "" }, { tokenFrom: "/contact?lng=de" });
    expect(empty.status).toBe(400);
    const text = visibleText(await empty.text());
    expect(text).toContain(de.flows.errorSummaryTitle);
  });
});

describe("a server without payments", () => {
  it("says so on the first step of /get-started and /subscribe, before anything is typed", async () => {
    for (const path of ["/get-started?lng=de", "/subscribe?lng=de"]) {
      const text = visibleText(await (await httpClient(app.url).get(path)).text());
      expect(text, path).toContain(de.payment.notConfigured);
    }
  });
});

describe("Back after booking", () => {
  it("leads the browser that booked to its booking, while anyone else is told the time is taken", async () => {
    const visitor = httpClient(app.url);
    const booked = await bookThroughPage(visitor, "demo-salon", {
      serviceName: "Haircut",
      phone: "(212) 555-0163",
      email: "back-after@example.com",
    });
    const slot = `/book/demo-salon?service=${booked.serviceId}&date=${booked.date}&time=${booked.time}&lng=en`;
    // The confirm step and the details step, as Back reaches them: the booking made, not a refusal.
    for (const path of [`${slot}&step=confirm`, slot]) {
      const back = await visitor.get(path);
      expect(back.status, path).toBe(302);
      expect(back.headers.get("location"), path).toBe("/book/demo-salon?step=done");
    }
    const someoneElse = visibleText(await (await httpClient(app.url).get(slot)).text());
    expect(someoneElse).toContain(en.book.timeUnavailable);
  });
});

describe("every field's error in one answer", () => {
  it('names a wrong e-mail and the phone "12" together on /subscribe and /get-started, not one per submit', async () => {
    const subscribe = await httpClient(app.url).postForm(
      "/subscribe?lng=en",
      { fullName: "Nour Saleh", email: "nour@", phone: "12", callFrequency: "weekly" },
      { tokenFrom: "/subscribe?lng=en" },
    );
    expect(subscribe.status).toBe(400);
    const subscribeText = visibleText(await subscribe.text());
    expect(subscribeText).toContain(en.subscribe.emailInvalid);
    expect(subscribeText).toContain(en.dialling.invalid);

    const register = await httpClient(app.url).postForm(
      "/get-started?lng=en",
      { name: "Nour's Studio", ownerName: "Nour Saleh", email: "nour@", phone: "12", industry: "service" },
      { tokenFrom: "/get-started?lng=en" },
    );
    expect(register.status).toBe(400);
    const registerText = visibleText(await register.text());
    expect(registerText).toContain(en.register.emailInvalid);
    expect(registerText).toContain(en.register.phoneInvalid);
  });
});

describe("the e-mail verification link", () => {
  it("opens in the language the owner registered in, and a second time says the address is verified and offers sign-in", async () => {
    const client = httpClient(app.url);
    const email = "verify-twice@example.com";
    const registered = await client.postJson("/api/business/register?lng=de", {
      name: "Studio Zweimal",
      ownerName: "Greta Weber",
      email,
      phone: "+49 30 901820",
    });
    expect(registered.status).toBe(201);
    const mail = await waitForMail(app.dataDir, email, /.*/);
    const link = new URL(linkIn(mail, "/verify-email"));
    expect(link.searchParams.get("lng")).toBe("de");
    // Another browser, whose language is not German: the link's language wins.
    const visitor = httpClient(app.url);
    const path = `${link.pathname}${link.search}`;
    expect(visibleText(await (await visitor.get(path)).text())).toContain(de.verify.pendingTitle);
    const fields = { token: link.searchParams.get("token")!, email: link.searchParams.get("email")! };
    const first = visibleText(await (await visitor.postForm(path, fields, { tokenFrom: path })).text());
    expect(first).toContain(de.verify.successTitle);
    // No payment provider on this server: said beside "Complete payment", before it is followed.
    expect(first).toContain(de.payment.notConfigured);
    const again = await httpClient(app.url).postForm(path, fields, { tokenFrom: path });
    expect(again.status).toBe(200);
    const html = await again.text();
    const text = visibleText(html);
    expect(text).toContain(de.verify.alreadyTitle);
    expect(text).toContain(de.verify.alreadyPaymentBody);
    expect(text).toContain(de.payment.notConfigured);
    expect(text).not.toContain(de.verify.errorTitle);
    expect(text).not.toContain(de.verify.registerAgain);
    expect(html).toContain('href="/login"');
  });
});

describe("the admin's business list", () => {
  it("counts each business's own bookings and confirmation calls", async () => {
    const [demo] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
    const [other] = await app.services.db
      .insert(businesses)
      .values({ ...demo!, id: undefined, name: "Quiet Shop", email: "quiet@example.com", bookingLink: "quiet-shop", phone: "+12125550100" })
      .returning();
    await app.services.db.insert(calls).values(
      [1, 2, 3].map(() => ({
        purpose: "booking_confirmation" as const,
        businessId: demo!.id,
        toNumber: "+12125550163",
        language: "en",
        voice: "marin",
        timeLimitSeconds: 300,
        startedAt: new Date(),
      })),
    );
    const count = async (table: typeof bookings | typeof calls, businessId: number) =>
      (
        await app.services.db
          .select({ n: sql<number>`count(*)::int` })
          .from(table)
          .where(eq(table.businessId, businessId))
      )[0]!.n;
    const { rows } = await listBusinessesForAdmin(app.services.db, { limit: 50, offset: 0 });
    const row = (id: number) => rows.find((r) => r.id === id)!;
    expect(await count(bookings, demo!.id)).toBeGreaterThan(1);
    expect(row(demo!.id).bookings).toBe(await count(bookings, demo!.id));
    expect(row(demo!.id).callsThisPeriod).toBe(3);
    expect(row(other!.id).bookings).toBe(0);
    expect(row(other!.id).callsThisPeriod).toBe(0);
  });
});

describe("a server without telephony", () => {
  it("says so at the top of every call form before anything is typed, with the submit disabled and pointing to it", async () => {
    const visitor = httpClient(app.url);
    const owner = await signedInOwner();
    for (const [client, path] of [
      [visitor, "/?lng=en"],
      [visitor, "/business?lng=en"],
      [visitor, "/call?lng=en"],
      [owner, "/telephony?lng=en"],
      [owner, "/dashboard/calls?lng=en"],
    ] as const) {
      const html = await (await client.get(path)).text();
      const notice = html.indexOf('id="calls-unavailable"');
      expect(notice, path).toBeGreaterThan(0);
      expect(visibleText(html), path).toContain(en.common.callsNotConfigured);
      // The notice comes before the form's fields, and the form's submit names it as its reason.
      expect(notice, path).toBeLessThan(html.indexOf('type="tel"'));
      expect(html, path).toMatch(
        /<button[^>]*type="submit"[^>]*disabled=""[^>]*aria-describedby="calls-unavailable"|<button[^>]*disabled=""[^>]*type="submit"[^>]*aria-describedby="calls-unavailable"/,
      );
    }
  });

  it("keeps the number an owner typed when a test call is posted anyway, with no error on the phone field", async () => {
    const owner = await signedInOwner();
    const posted = await owner.postForm("/telephony?lng=en", { to: "+1 212 555 0164" }, { tokenFrom: "/telephony?lng=en" });
    expect(posted.status).toBe(503);
    const html = await posted.text();
    expect(html).toContain('value="+1 212 555 0164"');
    expect(html).not.toContain('aria-invalid="true"');
    expect(visibleText(html)).toContain(en.common.callsNotConfigured);
  });
});

describe("messages", () => {
  it("are in sentence case; a first sign-in is welcomed, a later one welcomed back", async () => {
    const [business] = await app.services.db.select().from(businesses).limit(1);
    const email = "first-sign-in@example.com";
    const password = "a first sign-in for this owner";
    await app.services.db.insert(accounts).values({
      businessId: business!.id,
      name: "First Owner",
      email,
      passwordHash: await hashPassword(password),
      mustChangePassword: false,
    });
    const wrong = await httpClient(app.url).postForm(
      "/login?lng=en",
      { email, password: "not the password at all" },
      { tokenFrom: "/login?lng=en" },
    );
    expect(visibleText(await wrong.text())).toContain("Login failed");
    const signIn = async () => {
      const client = httpClient(app.url);
      const response = await client.postForm("/login?lng=en", { email, password }, { tokenFrom: "/login?lng=en" });
      expect(response.status).toBe(302);
      return visibleText(await (await client.get(response.headers.get("location")!)).text());
    };
    const first = await signIn();
    expect(first).toContain(en.auth.welcome);
    expect(first).not.toContain(en.auth.welcomeBack);
    expect(await signIn()).toContain(en.auth.welcomeBack);
    // Every short message of every language: no Title Case run of capitalised words.
    for (const [key, value] of Object.entries({ ...en.auth, ...en.verify, ...en.subscribe.dash, ...en.demo, ...en.payment })) {
      if (typeof value === "string" && value.length < 40) expect(value, key).not.toMatch(/^[A-Z]\w* [A-Z][a-z]/);
    }
  });

  it("the subscribe form's summary names each missing field once, with no general line repeating them", async () => {
    const response = await httpClient(app.url).postForm(
      "/subscribe?lng=en",
      { fullName: "Nour Saleh", email: "", phone: "", callFrequency: "" },
      {
        tokenFrom: "/subscribe?lng=en",
      },
    );
    expect(response.status).toBe(400);
    const text = visibleText(await response.text());
    for (const message of [en.subscribe.emailRequired, en.subscribe.phoneRequired, en.subscribe.frequencyRequired]) {
      expect(text.split(message).length - 1, message).toBeGreaterThanOrEqual(1);
    }
    expect(text).not.toContain(en.subscribe.incompleteBody);
    expect(text).not.toContain(en.subscribe.required);
  });
});

describe("pages say what is true now", () => {
  it("How it works links the live subscriptions; the footer says what the product is, not a version", async () => {
    const html = await (await httpClient(app.url).get("/how-it-works?lng=en")).text();
    expect(html).toContain('href="/subscribe"');
    expect(visibleText(html)).not.toMatch(/opening soon/i);
    for (const lng of ["en", "de"] as const) {
      const text = visibleText(await (await httpClient(app.url).get(`/?lng=${lng}`)).text());
      expect(text).toContain((lng === "en" ? en : de).meta.about);
      expect(text).not.toContain("v3.0.0");
    }
  });
});
