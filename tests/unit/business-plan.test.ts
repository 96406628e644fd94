import { describe, expect, it } from "vitest";
import { nextInvoiceEstimate, planDecision } from "~/features/business/plan.server";

describe("the next invoice estimate", () => {
  it("is $99 while the month's calls stay within 100", () => {
    expect(nextInvoiceEstimate({ planStatus: "active", used: 0, cancelAtPeriodEnd: false })).toBe(9900);
    expect(nextInvoiceEstimate({ planStatus: "active", used: 100, cancelAtPeriodEnd: false })).toBe(9900);
  });

  it("adds $1 for each call beyond 100", () => {
    expect(nextInvoiceEstimate({ planStatus: "active", used: 101, cancelAtPeriodEnd: false })).toBe(10000);
    expect(nextInvoiceEstimate({ planStatus: "active", used: 250, cancelAtPeriodEnd: false })).toBe(24900);
    expect(nextInvoiceEstimate({ planStatus: "past_due", used: 103, cancelAtPeriodEnd: false })).toBe(10200);
  });

  it("bills only the extra calls when the plan ends with the period", () => {
    expect(nextInvoiceEstimate({ planStatus: "active", used: 100, cancelAtPeriodEnd: true })).toBe(0);
    expect(nextInvoiceEstimate({ planStatus: "active", used: 105, cancelAtPeriodEnd: true })).toBe(500);
  });

  it("is the first month's $99 during the starter (its calls are in the $1), nothing once cancelled or ended", () => {
    expect(nextInvoiceEstimate({ planStatus: "starter", used: 20, cancelAtPeriodEnd: false })).toBe(9900);
    expect(nextInvoiceEstimate({ planStatus: "starter", used: 5, cancelAtPeriodEnd: true })).toBe(0);
    expect(nextInvoiceEstimate({ planStatus: "canceled", used: 150, cancelAtPeriodEnd: false })).toBe(0);
    expect(nextInvoiceEstimate({ planStatus: "none", used: 0, cancelAtPeriodEnd: false })).toBe(0);
  });
});

describe("the plan's decision on one more confirmation call", () => {
  const now = new Date("2026-06-10T12:00:00Z");
  const later = new Date("2026-06-12T12:00:00Z");

  it("lets the starter place calls 1 to 20 during its 7 days, not the 21st, and none after", () => {
    expect(planDecision({ planStatus: "starter", starterEndsAt: later }, 19, now)).toEqual({ ok: true, metered: false });
    expect(planDecision({ planStatus: "starter", starterEndsAt: later }, 20, now)).toEqual({ ok: false, reason: "starter_used" });
    expect(planDecision({ planStatus: "starter", starterEndsAt: now }, 0, now)).toEqual({ ok: false, reason: "starter_ended" });
  });

  it("places every monthly call (metered), holds calls while past due, refuses when ended", () => {
    expect(planDecision({ planStatus: "active", starterEndsAt: null }, 100, now)).toEqual({ ok: true, metered: true });
    expect(planDecision({ planStatus: "past_due", starterEndsAt: null }, 0, now)).toEqual({ ok: false, reason: "paused" });
    expect(planDecision({ planStatus: "canceled", starterEndsAt: null }, 0, now)).toEqual({ ok: false, reason: "canceled" });
    expect(planDecision({ planStatus: "none", starterEndsAt: null }, 0, now)).toEqual({ ok: false, reason: "no_plan" });
  });
});
