import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts, businesses } from "#models/schema";
import en from "~/locales/en";
import { hashPassword } from "~/features/auth/passwords.server";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";

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
  await app.services.db.insert(accounts).values({
    businessId: business!.id,
    name: "Providers Owner",
    email,
    passwordHash: await hashPassword(password),
    mustChangePassword: false,
  });
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
