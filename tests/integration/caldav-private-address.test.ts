import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calendarConnections } from "#models/schema";
import en from "~/locales/en";
import { startAppInProcess } from "../support/app-in-process";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { startRadicale, type Radicale } from "../support/radicale";

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let radicale: Radicale;
let owner: ReturnType<typeof httpClient>;

beforeAll(async () => {
  // The default: CALDAV_PRIVATE_ADDRESSES is not set, so this machine's own addresses are refused.
  [app, radicale] = await Promise.all([startAppInProcess({}), startRadicale()]);
  owner = httpClient(app.url);
  const password = await demoOwnerPassword(app.url, app.dataDir);
  expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
});
afterAll(async () => {
  await app?.stop();
  await radicale?.close();
});

describe("a CalDAV address on the server's own network", () => {
  it("is refused beside the field, by IP and by name, and nothing is kept", async () => {
    const port = new URL(radicale.origin).port;
    for (const calendarUrl of [
      `${radicale.origin}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      "http://169.254.169.254/latest/",
    ]) {
      const answer = await owner.postForm("/dashboard/settings?lng=en", {
        intent: "connect-calendar",
        calendarUrl,
        calendarUsername: radicale.user,
        calendarPassword: radicale.password,
      });
      expect(answer.status, calendarUrl).toBe(400);
      expect((await answer.text()).replace(/&#x27;|&#39;/g, "'"), calendarUrl).toContain(en.caldav.errorPrivateAddress);
    }
    expect(await app.services.db.select().from(calendarConnections)).toEqual([]);
  });
});
