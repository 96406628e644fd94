// First visits to public pages are answered from their last render, with a fresh CSP nonce and
// CSRF token spliced into already-gzipped bytes. What a visitor must still get: a valid page whose
// scripts the CSP allows, a token that works, nothing of anyone else's, and an owner's change on
// the next load.
import http from "node:http";
import zlib from "node:zlib";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { announceBusinessChange } from "#models/analytics";
import { businesses } from "#models/schema";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";

let app: Awaited<ReturnType<typeof startAppInProcess>>;

beforeAll(async () => {
  app = await startAppInProcess({});
});
afterAll(async () => {
  await app?.stop();
});

type Raw = { status: number; headers: http.IncomingHttpHeaders; html: string; fromCache: boolean };

/** A first visit as a browser makes it: no cookie, gzip accepted. */
function firstVisit(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http
      .get(`${app.url}${path}`, { headers: { "Accept-Encoding": "gzip, br", "Accept-Language": "en-US,en;q=0.9", ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          const encoding = res.headers["content-encoding"];
          const html = (
            encoding === "gzip" ? zlib.gunzipSync(body) : encoding === "br" ? zlib.brotliDecompressSync(body) : body
          ).toString();
          const fromCache = /page-cache;desc="hit"/.test(String(res.headers["server-timing"] ?? ""));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, html, fromCache });
        });
      })
      .on("error", reject);
  });
}

const nonceOf = (raw: Raw) => /'nonce-([^']+)'/.exec(String(raw.headers["content-security-policy"]))?.[1];
const tokenOf = (raw: Raw) => /name="csrf" value="([^"]+)"/.exec(raw.html)?.[1];

/** Until a first visit to `path` comes from the cache (the first one renders and fills it). */
async function cachedVisit(path: string, headers: Record<string, string> = {}) {
  for (let i = 0; i < 5; i++) {
    const visit = await firstVisit(path, headers);
    if (visit.fromCache) return visit;
  }
  throw new Error(`${path} never came from the page cache`);
}

describe("first visits to public pages", () => {
  it("get a whole, gzipped page whose every script carries this response's own nonce, and a token of their own", async () => {
    const first = await firstVisit("/");
    const second = await cachedVisit("/");
    const third = await cachedVisit("/");
    for (const visit of [first, second, third]) {
      expect(visit.status).toBe(200);
      expect(visit.html).toMatch(/^<!DOCTYPE html>/);
      expect(visit.html).toMatch(/<\/html>$/);
      const nonce = nonceOf(visit)!;
      const scripts = [...visit.html.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]!);
      expect(scripts.length).toBeGreaterThan(0);
      for (const attributes of scripts.filter((a) => !/\bsrc=/.test(a))) expect(attributes).toContain(`nonce="${nonce}"`);
      expect(visit.headers["set-cookie"]?.[0]).toMatch(/^csrf=/);
    }
    expect(second.headers["content-encoding"]).toBe("gzip");
    expect(new Set([first, second, third].map(nonceOf)).size).toBe(3);
    expect(new Set([first, second, third].map(tokenOf)).size).toBe(3);
    // The cached copy is the page itself, only its two per-response values differ.
    const strip = (visit: Raw) => visit.html.replaceAll(nonceOf(visit)!, "N").replaceAll(tokenOf(visit)!, "T");
    expect(strip(second)).toBe(strip(first));
  });

  it("hand out a CSRF token that the form it came with can post, and that no one else's cookie accepts", async () => {
    const visit = await cachedVisit("/");
    const cookie = visit.headers["set-cookie"]![0]!.split(";")[0]!;
    const post = (token: string, withCookie: string) =>
      fetch(`${app.url}/language`, {
        method: "POST",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: withCookie },
        body: new URLSearchParams({ csrf: token, lng: "ar", redirectTo: "/" }),
      });
    expect((await post(tokenOf(visit)!, cookie)).status).toBe(302);
    const other = await cachedVisit("/");
    expect((await post(tokenOf(visit)!, other.headers["set-cookie"]![0]!.split(";")[0]!)).status).toBe(403);
  });

  it("are kept apart by language, and a visitor with a cookie always gets a render of their own", async () => {
    const arabic = await cachedVisit("/", { "Accept-Language": "ar" });
    expect(arabic.html).toMatch(/<html lang="ar" dir="rtl"/);
    expect((await cachedVisit("/")).html).toMatch(/<html lang="en" dir="ltr"/);

    const client = httpClient(app.url);
    await client.postForm("/language", { lng: "fr", redirectTo: "/" });
    const page = await client.get("/");
    expect(page.headers.get("server-timing") ?? "").not.toContain("page-cache");
    expect(await page.text()).toMatch(/<html lang="fr"/);
  });

  it("show an owner's change on the next load", async () => {
    const before = await cachedVisit("/book/demo-salon");
    const [business] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
    expect(before.html).toContain(business!.name);
    // Any write through this process empties the cache; here a write made beside it (as by another
    // process) and then a form post.
    await app.services.db.update(businesses).set({ name: "Salon Renamed" }).where(eq(businesses.id, business!.id));
    const client = httpClient(app.url);
    await client.postForm("/language", { lng: "en", redirectTo: "/" });
    const after = await firstVisit("/book/demo-salon");
    expect(after.html).toContain("Salon Renamed");
  });

  it("leave out pages with a query string, and pages that are not the same for everyone", async () => {
    await firstVisit("/book/demo-salon?service=1");
    expect((await firstVisit("/book/demo-salon?service=1")).fromCache).toBe(false);
    await firstVisit("/login");
    expect((await firstVisit("/login")).fromCache).toBe(false);
    await firstVisit("/book/no-such-business");
    const missing = await firstVisit("/book/no-such-business");
    expect(missing.status).toBe(404);
    expect(missing.fromCache).toBe(false);
  });
});

describe("a day's availability asked again", () => {
  it("is the route's own answer, and shows a slot taken as soon as it is booked", async () => {
    const [service] = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number }[];
    const dayPath = (date: string) => `/api/booking/availability/demo-salon/${date}/${service!.id}`;
    type Slot = { time: string; available: boolean };
    let date = "";
    let free: Slot | undefined;
    for (let i = 2; i < 14 && !free; i++) {
      date = new Date(Date.now() + i * 86_400_000).toISOString().slice(0, 10);
      const response = await fetch(`${app.url}${dayPath(date)}`);
      if (response.status === 200) free = ((await response.json()) as Slot[]).find((slot) => slot.available);
    }
    expect(free).toBeDefined();
    const computed = await fetch(`${app.url}${dayPath(date)}`);
    const again = await fetch(`${app.url}${dayPath(date)}`);
    expect(again.status).toBe(200);
    expect(again.headers.get("server-timing")).toContain("read-cache");
    expect(again.headers.get("content-type")).toMatch(/^application\/json/);
    expect(again.headers.get("cache-control")).toBe("no-store");
    expect(again.headers.get("content-security-policy")).toContain("default-src 'self'");
    const slots = (await again.json()) as Slot[];
    expect(slots).toEqual(await computed.json());

    const booked = await httpClient(app.url).postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: service!.id,
      appointmentDate: `${date}T${free!.time}`,
      customerInfo: { name: "Cache Tester", phone: "+12125550177" },
      requestCall: false,
    });
    expect(booked.status).toBe(201);
    const after = (await (await fetch(`${app.url}${dayPath(date)}`)).json()) as Slot[];
    expect(after.find((slot) => slot.time === free!.time)?.available).toBe(false);
  });
});

/** Polls `read` until `done` holds or `withinMs` passes; the last value read. */
async function within<T>(withinMs: number, read: () => Promise<T>, done: (value: T) => boolean) {
  const deadline = Date.now() + withinMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) value = await read();
  return value;
}

describe("a change made outside this process's requests", () => {
  it("empties the cached pages as soon as it is announced (a booking by a job or the phone agent)", async () => {
    const before = await cachedVisit("/book/demo-salon");
    const [business] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
    expect(before.html).toContain(business!.name);
    await app.services.db.update(businesses).set({ name: "Salon Announced" }).where(eq(businesses.id, business!.id));
    await announceBusinessChange(app.services.db, business!.id);
    const after = await within(
      1000,
      () => firstVisit("/book/demo-salon"),
      (visit) => visit.html.includes("Salon Announced"),
    );
    expect(after.html).toContain("Salon Announced");
  });
});

// Two app processes on one PostgreSQL server (PGlite serves one process only).
describe.runIf(process.env.DATABASE_URL)("a write on another process", () => {
  it("shows on this one's cached pages and cached availability within a second", async () => {
    const other = await startAppInProcess({ ...app.sharedEnv, SEED_DEMO_DATA: "false" });
    try {
      const [business] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
      // This process holds the booking page and a day's free slots in its caches.
      await cachedVisit("/book/demo-salon");
      const [service] = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number }[];
      type Slot = { time: string; available: boolean };
      let date = "";
      let free: Slot | undefined;
      for (let i = 2; i < 14 && !free; i++) {
        date = new Date(Date.now() + i * 86_400_000).toISOString().slice(0, 10);
        const response = await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${service!.id}`);
        if (response.status === 200) free = ((await response.json()) as Slot[]).find((slot) => slot.available);
      }
      expect(free).toBeDefined();
      const day = () => fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${service!.id}`);
      expect((await day()).headers.get("server-timing")).toContain("read-cache");

      // The other process takes the slot and renames the business (a form post there).
      await app.services.db.update(businesses).set({ name: "Salon Elsewhere" }).where(eq(businesses.id, business!.id));
      const booked = await httpClient(other.url).postJson("/api/booking/create", {
        businessLink: "demo-salon",
        serviceId: service!.id,
        appointmentDate: `${date}T${free!.time}`,
        customerInfo: { name: "Other Process", phone: "+12125550178" },
        requestCall: false,
      });
      expect(booked.status).toBe(201);

      const slots = await within(
        1000,
        async () => (await (await day()).json()) as Slot[],
        (list) => list.find((slot) => slot.time === free!.time)?.available === false,
      );
      expect(slots.find((slot) => slot.time === free!.time)?.available).toBe(false);
      const page = await within(
        1000,
        () => firstVisit("/book/demo-salon"),
        (visit) => visit.html.includes("Salon Elsewhere"),
      );
      expect(page.html).toContain("Salon Elsewhere");
    } finally {
      await other.stop();
    }
  });
});
