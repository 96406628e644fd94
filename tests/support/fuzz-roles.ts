import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { subscribers } from "#models/schema";
import type { AppServices } from "~/platform/services.server";
import { enrolledAdmin } from "./admin";
import { demoOwnerPassword } from "./demo-owner";
import { httpClient } from "./http-client";
import type { Role } from "./fuzz-probes";

type App = { url: string; dataDir: string; services: AppServices };
type Client = ReturnType<typeof httpClient>;

const cookieOf = (client: Client) => [...client.jar].map(([k, v]) => `${k}=${v}`).join("; ");
const tokenOf = async (client: Client, path: string) => {
  const token = /name="csrf" value="([^"]+)"/.exec(await (await client.get(path)).text())?.[1];
  if (!token) throw new Error(`no CSRF token on ${path}`);
  return token;
};

/**
 * The five visitors the fuzz is each of, every one from its own loopback address (so one's
 * rate limits never make another's probes meaningless): a stranger, the demo business owner, an
 * admin who gave the password but not yet the second factor, a fully signed-in admin, and a
 * subscriber signed in after paying on Stripe's (fake) Checkout page.
 */
export async function fuzzRoles(app: App, stripeUrl: string): Promise<{ roles: Role[]; subscriberId: number }> {
  const at = (n: number) => `127.0.0.${n}`;

  const stranger = httpClient(app.url, { localAddress: at(11) });
  const strangerToken = await tokenOf(stranger, "/contact");

  const owner = httpClient(app.url, { localAddress: at(12) });
  const password = await demoOwnerPassword(app.url, app.dataDir);
  expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
  const ownerToken = await tokenOf(owner, "/dashboard");

  const admin = await enrolledAdmin(app);
  const half = httpClient(app.url, { localAddress: at(13) });
  const signIn = await half.postForm("/login", { email: admin.email, password: admin.password });
  expect(signIn.headers.get("location")).toMatch(/^\/login\/second-factor/);
  const halfToken = await tokenOf(half, "/login/second-factor?redirectTo=%2Fadmin");
  const adminToken = await tokenOf(admin.client, "/admin");

  const subscriber = httpClient(app.url, { localAddress: at(15) });
  const email = "fuzz-subscriber@example.com";
  const details = await subscriber.postForm("/subscribe", {
    fullName: "Fuzz Subscriber",
    email,
    phone: "+12125550199",
    callFrequency: "weekly",
  });
  expect(details.status).toBe(302);
  const toCheckout = await subscriber.postForm("/subscribe", { intent: "checkout" }, { tokenFrom: "/subscribe?step=payment" });
  const checkoutUrl = toCheckout.headers.get("Location") ?? "";
  expect(checkoutUrl.startsWith(`${stripeUrl}/checkout/`)).toBe(true);
  const paid = await fetch(checkoutUrl, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, card_number: "4242 4242 4242 4242" }),
  });
  const back = new URL(paid.headers.get("Location")!);
  expect((await subscriber.get(back.pathname + back.search)).status).toBe(200);
  const [row] = await app.services.db.select().from(subscribers).where(eq(subscribers.email, email));
  const subscriberToken = await tokenOf(subscriber, "/preferences");

  return {
    subscriberId: row!.id,
    roles: [
      { name: "stranger", cookie: cookieOf(stranger), csrf: strangerToken, localAddress: at(21) },
      { name: "owner", cookie: cookieOf(owner), csrf: ownerToken, localAddress: at(22) },
      { name: "half-admin", cookie: cookieOf(half), csrf: halfToken, localAddress: at(23) },
      { name: "admin", cookie: cookieOf(admin.client), csrf: adminToken, localAddress: at(24) },
      { name: "subscriber", cookie: cookieOf(subscriber), csrf: subscriberToken, localAddress: at(25) },
    ],
  };
}
