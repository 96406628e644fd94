import { customerServiceCallPurpose, lookupBookingTool } from "~/features/agent/index.server";
import { confirmationCallPurpose, demoCallPurpose, reminderCallPurpose } from "~/features/booking/index.server";
import { empathyCallPurpose } from "~/features/empathy/index.server";
import { receptionistCallPurpose } from "~/features/receptionist/index.server";
import { supportCallPurpose } from "~/features/subscriptions/index.server";
import type { CallPurpose, CallPurposes } from "~/platform/services.server";

/**
 * Every kind of call, registered with the call engine and the voice bridge at start-up (by
 * createServices, and by the bridge process): each feature that places calls brings its agent,
 * its admission rule and its lifecycle steps, so app/calls and app/voice import no feature
 * (docs/decisions/0028-call-purposes-register-with-the-engine.md). A purpose added to the enum
 * fails the type check here until it is registered.
 */
/**
 * The confirmation agent also answers about another booking of its own business, by that
 * booking's reference and the phone it was made with: the customer-service agent's look-up (one
 * answer for any mismatch, rate limited), lent here so booking and agent do not import each other.
 */
const confirmationWithLookup: CallPurpose = {
  ...confirmationCallPurpose,
  async agent(services, call) {
    const agent = await confirmationCallPurpose.agent(services, call);
    if (!call.businessId || !call.bookingId) return agent;
    const session = { phone: call.toNumber, sessionKey: `call-${call.id}`, channel: "voice" as const };
    return {
      ...agent,
      instructions: `${agent.instructions}\nIf they ask about another booking with this business, ask for its reference and the phone number it was made with, and use lookup_booking; if it finds nothing, say so without any detail.`,
      tools: [lookupBookingTool(services, session, { businessId: call.businessId }), ...agent.tools],
    };
  },
};

export const callPurposes: CallPurposes = {
  empathy: empathyCallPurpose,
  support: supportCallPurpose,
  booking_confirmation: confirmationWithLookup,
  // The reminder a chosen number of hours before the appointment (owner settings).
  booking_reminder: reminderCallPurpose,
  demo: demoCallPurpose,
  customer_service: customerServiceCallPurpose,
  // The owner's phone test call to their own number: the same customer-service agent.
  test: customerServiceCallPurpose,
  // A caller ringing the business's own number (ADR 0041): recorded by the inbound webhook, never dialled.
  receptionist: receptionistCallPurpose,
};
