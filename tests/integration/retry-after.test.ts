import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RouterContextProvider } from "react-router";
import { clientIpContext, servicesContext } from "~/platform/context";
import { firstExceededRule, retryAfterMiddleware } from "~/platform/security/rate-limit.server";
import type { AppServices } from "~/platform/services.server";
import { createTestServices } from "../support/services";

let services: Awaited<ReturnType<typeof createTestServices>>;
beforeAll(async () => {
  services = await createTestServices({}, { runWorkers: false });
});
afterAll(() => services.close());

function requestContext() {
  const context = new RouterContextProvider();
  context.set(servicesContext, services as unknown as AppServices);
  context.set(clientIpContext, "192.0.2.7");
  return context;
}

const args = (context: RouterContextProvider) =>
  ({ context, request: new Request("http://localhost/"), params: {}, unstable_pattern: "/" }) as unknown as Parameters<
    typeof retryAfterMiddleware
  >[0];

describe("Retry-After on every 429", () => {
  it("tells the client how many seconds the exceeded rule still runs", async () => {
    const context = requestContext();
    const rule = { name: "retry-test", subject: "a", limit: 1, windowSeconds: 600 };
    expect(await firstExceededRule(context, [rule])).toBeNull();
    const exceeded = await firstExceededRule(context, [rule]);
    expect(exceeded?.retryAfterSeconds).toBeGreaterThan(0);
    const response = await retryAfterMiddleware(args(context), async () => Response.json({ error: "slow down" }, { status: 429 }));
    expect((response as Response).headers.get("Retry-After")).toBe(String(exceeded!.retryAfterSeconds));
  });

  it("adds a minute where no rule recorded a wait, and leaves other answers and explicit values alone", async () => {
    const bare = await retryAfterMiddleware(args(requestContext()), async () => new Response("busy", { status: 429 }));
    expect((bare as Response).headers.get("Retry-After")).toBe("60");
    const explicit = await retryAfterMiddleware(
      args(requestContext()),
      async () => new Response("busy", { status: 429, headers: { "Retry-After": "5" } }),
    );
    expect((explicit as Response).headers.get("Retry-After")).toBe("5");
    const ok = await retryAfterMiddleware(args(requestContext()), async () => new Response("fine"));
    expect((ok as Response).headers.has("Retry-After")).toBe(false);
  });
});
