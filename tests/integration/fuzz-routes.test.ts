import { afterAll, beforeAll, beforeEach, describe, it } from "vitest";
import routeConfig from "~/routes";
import type { FakeStripe } from "../fakes/stripe";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { allowLog } from "../support/console";
import { distinctPaths, FUZZ_APP, SILENT_MODEL_WARNING, ROUTE_FUZZ_SHARES, routeFuzzShare, type RouteEntry } from "../support/route-fuzz";

/**
 * The second share of the route fuzz (the first, and the rest of the fuzz, are in fuzz.test.ts),
 * on an app of its own: `npm test` runs the two files side by side, after the other suites.
 */

let app: InProcessApp;
let close: () => Promise<void>;
let stripe: FakeStripe;

beforeAll(async () => {
  ({ app, stripe, close } = await startAppWithFakes(FUZZ_APP));
});

afterAll(() => close?.());

// The silent fake model's calls end 60 s after the fuzz places them, during any test (see route-fuzz.ts).
beforeEach(() => allowLog("warn", SILENT_MODEL_WARNING));

describe("the route fuzz, as every kind of visitor", () => {
  it(
    `answers its share (2 of ${ROUTE_FUZZ_SHARES.length}) of 10,000 seeded hostile requests on every route and role without a 5xx or a stack trace, and stays responsive`,
    { timeout: 900_000 },
    () => routeFuzzShare(app, stripe.url, distinctPaths(routeConfig as RouteEntry[]), 1),
  );
});
