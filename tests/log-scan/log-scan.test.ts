import path from "node:path";
import { describe, expect, it } from "vitest";
import { redact } from "~/platform/observability/log.server";
import { customerNamesInTests, findLeaks, scanLogDir } from "../support/log-scan";

// Issue 49: no log line written during the test suite holds a phone number, an e-mail address, a
// token or a customer's name. `npm test` points SAKINA_LOG_DIR at a fresh folder for its vitest
// runs (tests/support/setup.ts writes every line the app's logger wrote there, child servers'
// lines too), then runs this file over it. The logger does the redaction (log.server.ts), not
// its callers: these lines come from every path the suite drove.

const root = path.resolve(import.meta.dirname, "../..");
const names = customerNamesInTests(root);
const dir = process.env.SAKINA_LOG_DIR;

describe("the log of the test suite", () => {
  it.skipIf(!dir)("holds no phone number, e-mail address, token or customer's name", () => {
    const { files, lines, findings } = scanLogDir(dir!, names);
    // The whole suite's run (scripts/test.js says so) that collected nothing would prove nothing.
    if (process.env.SAKINA_LOG_SCAN_FULL) {
      expect(files).toBeGreaterThan(0);
      expect(lines).toBeGreaterThan(100);
    }
    expect(findings.slice(0, 20)).toEqual([]);
  });
});

describe("the scan and the logger's redaction", () => {
  const sample = (msg: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ level: 40, time: 1764676543210, pid: 4242, msg, ...extra });

  it("finds the personal details and secrets in raw lines", () => {
    expect(names).toContain("Layla Hassan");
    expect(names.length).toBeGreaterThan(10);
    const raw = [
      sample("call 12 to +966501234567 failed"),
      sample("Could not send to layla@example.com"),
      sample("Stripe said no", { key: "sk_test_abcdefghijklmnop" }),
      sample("booking made", { customer: "Layla Hassan" }),
    ].join("\n");
    expect(findLeaks(raw, names).map((finding) => finding.what)).toEqual([
      "a phone number",
      "an e-mail address",
      "a token",
      `the customer's name "Layla Hassan"`,
    ]);
  });

  it("finds nothing once the logger redacted the same lines, and keeps what an operator needs", () => {
    const lines = [
      sample("call 12 to +966501234567 failed; retry at 0501234567 or (212) 555-0100? no: +1 212-555-0100"),
      sample("Could not send to layla@example.com"),
      sample("Stripe said no", { apiKey: "sk_test_abcdefghijklmnop", headers: { authorization: "Bearer abc.def.ghi" } }),
      sample("booking made", { customerName: "Layla Hassan", name: "Layla Hassan", phone: "(212) 555-0199" }),
      sample("capability link /booking/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_- opened"),
      sample("media stream for call 7 (CA0123456789abcdef0123456789abcdef) refused: bad or used token", {
        requestId: "7b0a3c52-1f7e-4d7a-9a43-6b0c1d2e3f40",
      }),
    ].map(redact);
    expect(lines.flatMap((line) => findLeaks(line, names))).toEqual([]);
    expect(lines.join("\n")).not.toContain("AbCdEfGhIjKlMnOpQrStUvWxYz0123456789");
    // Ids, times and the call's provider id stay.
    expect(lines[0]).toContain('"time":1764676543210');
    expect(lines[0]).toContain("call 12 to [redacted] failed");
    expect(lines[5]).toContain("CA0123456789abcdef0123456789abcdef");
    expect(lines[5]).toContain("7b0a3c52-1f7e-4d7a-9a43-6b0c1d2e3f40");
    // A UUID's digit runs are not phone numbers.
    expect(redact(sample("request", { requestId: "5e0a1b2c-0063-4d7a-9a43-001234567890" }))).toContain(
      "5e0a1b2c-0063-4d7a-9a43-001234567890",
    );
  });
});
