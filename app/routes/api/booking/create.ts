import { z } from "zod";
import type { Route } from "./+types/create";
import { contactSchema } from "~/features/booking/schemas";
import { apiError, fieldErrors, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { bookableBusinessWithService, normalizeCustomerPhone, parseAppointmentDate, placeBooking } from "~/features/booking/booking.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule, phoneLimitSubject } from "~/platform/security/rate-limit.server";
import { parseDbId } from "~/lib/ids";
import { formatBookingReference } from "#models/booking-reference";
import { visitorOrigin } from "~/calls/gate.server";

/**
 * POST /api/booking/create { businessLink, serviceId, appointmentDate, customerInfo, requestCall }.
 * 201 with the booking; 409 "just taken" when another booking got the time first. A repeated
 * Idempotency-Key (header or body) with the same request returns the booking it made (200); the
 * key with any other request is 409 `idempotency_key_reused`, with nothing of that booking.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const body = await readJsonBody(request);
  const businessLink = typeof body.businessLink === "string" ? body.businessLink : "";
  const serviceId = parseDbId(body.serviceId);
  const appointmentDate = typeof body.appointmentDate === "string" ? body.appointmentDate : "";
  if (!businessLink || !serviceId || !appointmentDate) {
    return apiError(400, t("book.missingInfo"));
  }
  const { business, service } = await bookableBusinessWithService(services, businessLink, serviceId);
  if (!business) return apiError(404, t("book.invalidBody"));
  if (!service) return apiError(400, t("book.apiUnknownService"));
  const start = parseAppointmentDate(appointmentDate, business.timeZone);
  if (start === null) return apiError(400, t("book.apiBadDate"));

  const customer = contactSchema(t).safeParse(body.customerInfo ?? {});
  if (!customer.success) return apiError(400, t("book.errorBody"), { fields: fieldErrors(customer.error) });
  const phone = normalizeCustomerPhone(customer.data.phone, business);
  if (!phone.ok) return apiError(400, t("book.phoneInvalid"), { fields: { phone: [t("book.phoneInvalid")] } });
  const key = z
    .string()
    .min(1)
    .max(100)
    .safeParse(request.headers.get("Idempotency-Key") ?? body.idempotencyKey);

  const exceeded = await firstExceededRule(context, [
    { name: "booking:ip", subject: clientIp(context), limit: 20, windowSeconds: 3600 },
    { name: "booking:phone", subject: phoneLimitSubject(phone.e164), limit: 5, windowSeconds: 3600 },
  ]);
  if (exceeded) return apiError(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));

  const result = await placeBooking(services, {
    business,
    service,
    start,
    customer: { name: customer.data.name, phone: phone.e164, email: customer.data.email || null, notes: customer.data.notes || null },
    language: getLocale(context),
    idempotency: key.success ? { client: "api", key: key.data } : null,
    origin: services.publicOrigin(),
    callOrigin: visitorOrigin(services, clientIp(context)),
  });
  if (result.kind === "taken") return apiError(409, t("book.justTaken"), { code: "slot_taken" });
  if (result.kind === "key_reused") return apiError(409, t("book.requestKeyReused"), { code: "idempotency_key_reused" });
  if (result.kind === "not_a_slot") return apiError(400, t("book.timeUnavailable"), { code: "not_a_slot" });
  const { booking } = result;
  return Response.json(
    {
      success: true,
      booking: {
        id: booking.id,
        status: booking.status,
        startsAt: booking.startsAt.toISOString(),
        endsAt: booking.endsAt.toISOString(),
        customerPhone: booking.customerPhone,
        /** What the customer quotes when they phone, grouped as it is read out ("K7M-Q4P"). */
        reference: formatBookingReference(booking.reference),
      },
    },
    { status: result.duplicate ? 200 : 201 },
  );
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
