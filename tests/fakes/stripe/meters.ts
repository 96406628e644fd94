// Billing meters: recording meter events and the problems Stripe reports about them asynchronously.
import { bad, describe, invalid, ApiError } from "./validation";
import { now, random } from "./objects";
import type { Obj } from "./types";
import type { FakeStripeState } from "./state";

export function recordMeterEvent(state: FakeStripeState, p: Obj): Obj {
  const payload = p.payload;
  if (!payload || typeof payload !== "object" || Array.isArray(payload))
    throw bad("Missing required param: payload.", "payload", "parameter_missing");
  for (const [k, v] of Object.entries(payload as Obj)) {
    if (typeof v !== "string") throw bad(`Invalid value type: ${describe(v)} must be a string`, `payload[${k}]`);
  }
  const t = now();
  const timestamp = p.timestamp ?? t;
  if (timestamp < t - 35 * 86400) throw invalid("Timestamp must be within the past 35 calendar days.", { param: "timestamp" });
  if (timestamp > t + 300) throw invalid("Timestamp must not be more than 5 minutes in the future.", { param: "timestamp" });
  const identifier: string = p.identifier ?? random(36, "0123456789abcdef");
  const seen = state.meterEventTimes.get(identifier);
  if (seen !== undefined && seen > t - 24 * 3600) {
    throw new ApiError(
      400,
      { type: "invalid_request_error", message: `An event already exists with identifier ${identifier}.`, param: "identifier" },
      { headers: { "Stripe-Should-Retry": "false" } },
    );
  }
  state.meterEventTimes.set(identifier, t);
  const event = {
    object: "billing.meter_event",
    created: t,
    event_name: p.event_name,
    identifier,
    livemode: false,
    payload: { ...(payload as Obj) },
    timestamp,
  };
  state.meterEvents.set(identifier, event);
  // Stripe checks the rest asynchronously and reports it (billing.meter.error_report_triggered).
  const meter = [...state.meters.values()].find((m) => m.event_name === p.event_name && m.status === "active");
  if (!meter) {
    state.meterEventErrors.push({ identifier, code: "no_meter", message: `No active meter was found for event name \`${p.event_name}\`.` });
  } else {
    const customerKey = meter.customer_mapping.event_payload_key;
    const valueKey = meter.value_settings.event_payload_key;
    const customerId = (payload as Obj)[customerKey];
    if (!customerId)
      state.meterEventErrors.push({
        identifier,
        code: "meter_event_no_customer_defined",
        message: `The payload has no \`${customerKey}\`.`,
      });
    else if (!state.customers.has(customerId))
      state.meterEventErrors.push({ identifier, code: "meter_event_customer_not_found", message: `No such customer: '${customerId}'` });
    const value = (payload as Obj)[valueKey];
    if (meter.default_aggregation.formula !== "count" && (value === undefined || !/^-?\d+(\.\d+)?$/.test(value))) {
      state.meterEventErrors.push({
        identifier,
        code: "meter_event_invalid_value",
        message: `The payload's \`${valueKey}\` must be a number, got ${describe(value)}.`,
      });
    }
  }
  return event;
}
