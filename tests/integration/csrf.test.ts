import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { businessServices } from "#models/schema";
import { startAppInProcess } from "../support/app-in-process";
import { expectLog } from "../support/console";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";

/**
 * A signed-in owner visits an attacker's page, which posts to the owner's app with the owner's
 * cookies. Whatever Content-Type the attacker writes, a page's form needs its token: the JSON
 * exemption belongs to the JSON API routes, by address, and only without a foreign Origin.
 */

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let owner: ReturnType<typeof httpClient>;
let cookie: string;

beforeAll(async () => {
  app = await startAppInProcess({});
  const password = await demoOwnerPassword(app.url, app.dataDir);
  owner = httpClient(app.url, { localAddress: "127.0.0.251" });
  expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
  cookie = [...owner.jar].map(([k, v]) => `${k}=${v}`).join("; ");
});

afterAll(async () => {
  await app?.stop();
});

const EVIL = "https://evil.example";
const serviceNamed = async (name: string) => app.services.db.select().from(businessServices).where(eq(businessServices.name, name));
const addService = (name: string) =>
  new URLSearchParams({ intent: "add-service", name, price: "1", currency: "USD", durationMinutes: "30" });

describe("a cross-site post to a page", () => {
  const attacks: [string, (name: string) => { contentType?: string; body: string | FormData }][] = [
    [
      "a form that says it is also JSON",
      (name) => ({ contentType: "application/x-www-form-urlencoded; application/json", body: addService(name).toString() }),
    ],
    ["plain text that says it is JSON", (name) => ({ contentType: "text/plain; application/json", body: addService(name).toString() })],
    ["JSON", (name) => ({ contentType: "application/json", body: JSON.stringify(Object.fromEntries(addService(name))) })],
    [
      "multipart",
      (name) => {
        const form = new FormData();
        for (const [key, value] of addService(name)) form.set(key, value);
        return { body: form };
      },
    ],
    [
      "multipart that says it is also JSON",
      (name) => ({
        contentType: "multipart/form-data; boundary=b; application/json",
        body:
          [...addService(name)].map(([k, v]) => `--b\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join("") +
          "--b--\r\n",
      }),
    ],
  ];

  for (const [what, attack] of attacks) {
    for (const origin of [null, EVIL]) {
      it(`is refused without the token: ${what}, ${origin ? "foreign" : "no"} Origin`, async () => {
        const name = `Evil ${what} ${origin ?? "none"}`;
        const { contentType, body } = attack(name);
        if (origin && (!contentType || /^(application\/x-www-form-urlencoded|multipart\/form-data)/.test(contentType))) {
          expectLog("error", /origin does not match `origin` header/);
        }
        const response = await fetch(`${app.url}/dashboard/services`, {
          method: "POST",
          redirect: "manual",
          headers: { Cookie: cookie, ...(contentType ? { "Content-Type": contentType } : {}), ...(origin ? { Origin: origin } : {}) },
          body,
        });
        // A page takes forms only: any other media type is turned away (415) before the token is looked at,
        // and React Router itself refuses a form from a foreign Origin (400, and logs it) before the app's middleware runs.
        const form = !contentType || /^(application\/x-www-form-urlencoded|multipart\/form-data)/.test(contentType);
        expect(response.status).toBe(!form ? 415 : origin ? 400 : 403);
        expect(await serviceNamed(name)).toEqual([]);
      });
    }
  }

  it("is refused when the browser says another site sent it, even with a token", async () => {
    const token = /name="csrf" value="([^"]+)"/.exec(await (await owner.get("/dashboard/services")).text())![1]!;
    const name = "Evil sec-fetch-site";
    const body = addService(name);
    body.set("csrf", token);
    const response = await fetch(`${app.url}/dashboard/services`, {
      method: "POST",
      redirect: "manual",
      headers: {
        Cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join("; "),
        "Content-Type": "application/x-www-form-urlencoded",
        "Sec-Fetch-Site": "cross-site",
      },
      body,
    });
    expect(response.status).toBe(403);
    expect(await serviceNamed(name)).toEqual([]);
  });

  it("is not refused when it is the owner's own form, with its token (same-origin or no Origin)", async () => {
    for (const origin of [app.url, null]) {
      const name = `Own service ${origin ? "with" : "without"} Origin`;
      const token = /name="csrf" value="([^"]+)"/.exec(await (await owner.get("/dashboard/services")).text())![1]!;
      const body = addService(name);
      body.set("csrf", token);
      const response = await fetch(`${app.url}/dashboard/services`, {
        method: "POST",
        redirect: "manual",
        headers: {
          Cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join("; "),
          "Content-Type": "application/x-www-form-urlencoded",
          "Sec-Fetch-Site": "same-origin",
          ...(origin ? { Origin: origin } : {}),
        },
        body,
      });
      expect(response.status).toBeLessThan(400);
      expect(await serviceNamed(name)).toHaveLength(1);
    }
  });
});

describe("the JSON APIs", () => {
  // A new address each time, so no guess counts towards another's slow-down.
  let guesses = 0;
  const login = (headers: Record<string, string>) =>
    fetch(`${app.url}/api/auth/login`, {
      method: "POST",
      headers,
      body: JSON.stringify({ email: `nobody-${++guesses}@example.com`, password: "wrong" }),
    });

  it("take JSON from a script (no Origin) and from the app's own pages (same Origin), as before", async () => {
    const sameOrigin: Record<string, string>[] = [{}, { Origin: app.url }, { Origin: app.url, "Sec-Fetch-Site": "same-origin" }];
    for (const headers of sameOrigin) {
      const response = await login({ "Content-Type": "application/json", ...headers });
      // The wrong password is the API's own answer: the request got past the CSRF check.
      expect(response.status).toBe(401);
      expect(await response.json()).toHaveProperty("error");
    }
    const charset = await login({ "Content-Type": "application/json; charset=utf-8" });
    expect(charset.status).toBe(401);
  });

  it("refuse JSON from another site, and a body that only claims to be JSON", async () => {
    const attacks: Record<string, string>[] = [
      { "Content-Type": "application/json", Origin: EVIL },
      { "Content-Type": "application/json", Origin: "null" },
      { "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site" },
      { "Content-Type": "text/plain; application/json" },
      { "Content-Type": "application/x-www-form-urlencoded; application/json" },
    ];
    for (const headers of attacks) {
      const response = await login(headers);
      expect(`${JSON.stringify(headers)} → ${response.status}`).toBe(`${JSON.stringify(headers)} → 403`);
    }
  });

  it("keep the form token for an API a page's form posts to that is not a JSON API (the voice turn)", async () => {
    const response = await fetch(`${app.url}/api/conversation/voice`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: app.url },
      body: "{}",
    });
    expect(response.status).toBe(403);
  });
});
