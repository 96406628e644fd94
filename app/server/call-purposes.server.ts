import { customerServiceCallPurpose } from "~/features/agent/index.server";
import { confirmationCallPurpose, demoCallPurpose, reminderCallPurpose } from "~/features/booking/index.server";
import { empathyCallPurpose } from "~/features/empathy/index.server";
import { supportCallPurpose } from "~/features/subscriptions/index.server";
import type { CallPurposes } from "~/platform/services.server";

/**
 * Every kind of call, registered with the call engine and the voice bridge at start-up (by
 * createServices, and by the bridge process): each feature that places calls brings its agent,
 * its admission rule and its lifecycle steps, so app/calls and app/voice import no feature
 * (docs/decisions/0028-call-purposes-register-with-the-engine.md). A purpose added to the enum
 * fails the type check here until it is registered.
 */
export const callPurposes: CallPurposes = {
  empathy: empathyCallPurpose,
  support: supportCallPurpose,
  booking_confirmation: confirmationCallPurpose,
  // The reminder a chosen number of hours before the appointment (owner settings).
  booking_reminder: reminderCallPurpose,
  demo: demoCallPurpose,
  customer_service: customerServiceCallPurpose,
  // The owner's phone test call to their own number: the same customer-service agent.
  test: customerServiceCallPurpose,
};
