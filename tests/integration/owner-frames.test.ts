import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { businesses } from "#models/schema";
import { createAdminWithLink } from "~/features/admin/admins.server";
import type { FakeRealtime } from "../fakes/openai-realtime";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";

let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;
let owner: ReturnType<typeof httpClient>;

beforeAll(async () => {
  ({ app, realtime, close } = await startAppWithFakes({ realtime: { audioSpeed: 10 } }));
  const password = await demoOwnerPassword(app.url, app.dataDir);
  owner = httpClient(app.url);
  expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
});

afterAll(() => close?.());

/** The site's header offers "Log in"; the owner's frame never does. */
const loginLink = /<a[^>]+href="\/login(\?[^"]*)?"/;
const ownerNav = 'aria-label="Your business"';

describe("one frame per audience", () => {
  it("draws /telephony, /providers and change-password in the owner's frame for a signed-in owner, with no Login link", async () => {
    for (const path of ["/telephony", "/providers", "/change-password"]) {
      const response = await owner.get(path);
      expect(response.status, path).toBe(200);
      const html = await response.text();
      expect(html, path).toContain(ownerNav);
      expect(html, path).toContain("Demo Salon");
      expect(html, path).toMatch(/action="\/logout"/);
      expect(html, path).not.toMatch(loginLink);
    }
    // The public still sees the site's own frame there, with its way to sign in.
    const publicProviders = await (await httpClient(app.url).get("/providers")).text();
    expect(publicProviders).not.toContain(ownerNav);
    expect(publicProviders).toMatch(loginLink);
  });

  it("draws the two-step sign-in setup in the admin's own frame, not the site's header with Login", async () => {
    const email = `frames-admin-${Date.now()}@example.com`;
    const created = await createAdminWithLink(app.services, email);
    if (!created.ok) throw new Error(created.reason);
    const link = new URL(created.link);
    const admin = httpClient(app.url);
    const password = "frames admin password long";
    const set = await admin.postForm(`${link.pathname}${link.search}`, {
      password,
      confirm: password,
      token: link.searchParams.get("token")!,
      email,
    });
    expect(set.status).toBe(302);
    const page = await admin.get("/login/second-factor?redirectTo=%2Fadmin");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-testid="totp-secret"');
    expect(html).toContain(email);
    expect(html).toMatch(/action="\/logout"/);
    expect(html).not.toMatch(loginLink);
    // Before the second step is passed, the admin's sections (all 404 until then) are not offered.
    expect(html).not.toContain('href="/admin/businesses"');
  });

  it("marks Support as the current page on /dashboard/support, and no other tab", async () => {
    const html = await (await owner.get("/dashboard/support")).text();
    expect(html).toMatch(
      /<a[^>]*href="\/dashboard\/support"[^>]*aria-current="page"|<a[^>]*aria-current="page"[^>]*href="\/dashboard\/support"/,
    );
    expect(html.match(/aria-current=/g)).toHaveLength(1);
  });

  it("sets the call voice in one place, spelled one way, and offers no Creativity field", async () => {
    const voicePage = await (await owner.get("/voice-settings")).text();
    expect(voicePage).not.toContain("Creativity");
    expect(voicePage).not.toContain('name="creativity"');
    expect(voicePage).toContain('<option value="alloy">Alloy</option>');
    const settings = await (await owner.get("/dashboard/settings")).text();
    expect(settings).not.toContain('name="confirmationVoice"');
    expect(settings).toContain('href="/voice-settings"');
    expect(settings).toContain("Change the voice in the voice settings");
  });
});

describe("booking links from non-Latin names", () => {
  it("gives a business registered as صالون الورد a readable link, unique when a second registers the same name", async () => {
    const links: string[] = [];
    for (const n of [1, 2]) {
      const client = httpClient(app.url, { forwardedFor: `198.51.100.${n}` });
      const email = `alward-${n}@example.com`;
      const registered = await client.postJson("/api/business/register", {
        name: "صالون الورد",
        ownerName: "Layla",
        email,
        phone: "+966 50 123 4567",
      });
      expect(registered.status).toBe(201);
      const [row] = await app.services.db.select().from(businesses).where(eq(businesses.email, email));
      links.push(row!.bookingLink);
    }
    expect(links[0]).toBe("salun-alurd");
    expect(links[1]).toMatch(/^salun-alurd-[0-9a-f]{4}$/);
    expect(links).not.toContain("business");
    // The link opens that business's booking page once it is live.
    await app.services.db.update(businesses).set({ status: "active" }).where(eq(businesses.bookingLink, "salun-alurd"));
    const page = await httpClient(app.url).get("/book/salun-alurd");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("صالون الورد");
  });

  it("writes Cyrillic and Greek names in Latin, and gives a Chinese name its kind and a code of its own, unique per business", async () => {
    const register = async (n: number, name: string, industry: string) => {
      const email = `scripts-${n}@example.com`;
      const client = httpClient(app.url, { forwardedFor: `198.51.100.${20 + n}` });
      const registered = await client.postJson("/api/business/register", {
        name,
        ownerName: "Olga",
        email,
        phone: "+49 30 1234567",
        industry,
      });
      expect(registered.status).toBe(201);
      const [row] = await app.services.db.select().from(businesses).where(eq(businesses.email, email));
      return row!.bookingLink;
    };
    expect(await register(1, "Салон Роза", "beauty")).toBe("salon-roza");
    expect(await register(2, "Κομμωτήριο Ελένη", "beauty")).toBe("kommotirio-eleni");
    const flowers = await register(3, "花店", "retail");
    expect(flowers).toMatch(/^retail-[0-9a-z]{6}$/);
    const tea = await register(4, "茶馆", "retail");
    expect(tea).toMatch(/^retail-[0-9a-z]{6}$/);
    expect(tea).not.toBe(flowers);
    // The same name again: its link taken, the second gets a suffix, as for any name.
    expect(await register(5, "花店", "retail")).toMatch(new RegExp(`^${flowers}-[0-9a-f]{4}$`));
    await app.services.db.update(businesses).set({ status: "active" }).where(eq(businesses.bookingLink, flowers));
    const page = await httpClient(app.url).get(`/book/${flowers}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("花店");
  });
});

describe("Test Voice without JavaScript", () => {
  const fields = { text: "Hello from the salon", voice: "coral", speed: "1", language: "en-US" };

  it("answers the browser's form post with a page holding an audio player and the way back", async () => {
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await owner.get("/voice-settings")).text())![1]!;
    const cookie = [...owner.jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const response = await fetch(`${app.url}/api/speech/synthesize`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        Cookie: cookie,
      },
      body: new URLSearchParams({ csrf, ...fields }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toMatch(/text\/html/);
    const html = await response.text();
    expect(html).toMatch(/<audio[^>]*controls[^>]*src="data:audio\/mpeg;base64,[A-Za-z0-9+/]{100,}/);
    expect(html).toContain('href="/voice-settings"');
    expect(html).toContain("Back to voice settings");
    expect(html).toContain("Hello from the salon"); // the words read, beside the player
    expect(html).toContain(ownerNav);
    expect(realtime.speechRequests.at(-1)!.body).toMatchObject({ input: "Hello from the salon", voice: "coral" });

    // The CSRF check still applies to the page's post.
    const forged = await fetch(`${app.url}/api/speech/synthesize`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "text/html", Cookie: cookie },
      body: new URLSearchParams({ csrf: "forged", ...fields }),
    });
    expect(forged.status).toBe(403);

    // A sample that cannot be made says why on the page, with the same way back.
    const empty = await fetch(`${app.url}/api/speech/synthesize`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "text/html", Cookie: cookie },
      body: new URLSearchParams({ csrf, ...fields, text: " " }),
    });
    expect(empty.status).toBe(400);
    const emptyHtml = await empty.text();
    expect(emptyHtml).toContain('role="alert"');
    expect(emptyHtml).toContain('href="/voice-settings"');
  });

  it("still answers the page's script (JSON) with the audio, and its errors as JSON", async () => {
    const audio = await owner.postJson("/api/speech/synthesize", { text: "Hello", voice: "ash", speed: 1, language: "en-US" });
    expect(audio.status).toBe(200);
    expect(audio.headers.get("Content-Type")).toBe("audio/mpeg");
    const empty = await owner.postJson("/api/speech/synthesize", { text: " ", voice: "ash", speed: 1 });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: string }).error).toBeTruthy();
    const stranger = await httpClient(app.url).postJson("/api/speech/synthesize", { text: "hi", voice: "ash", speed: 1 });
    expect(stranger.status).toBe(401);
    expect(stranger.headers.get("Content-Type")).toMatch(/application\/json/);
    expect((await httpClient(app.url).get("/api/speech/synthesize")).status).toBe(405);
  });
});
