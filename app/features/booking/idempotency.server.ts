import { createHash, createHmac } from "node:crypto";

/**
 * Who sent a retry key: the booking page's form, the public API, or one agent conversation
 * (`agent <its session key>`). A key counts only within its client: what a caller sends to the
 * API or the form never finds what a conversation, or the other path, booked.
 */
export type IdempotencyClient = "form" | "api" | `agent ${string}`;

/** A request's retry key with its client (BookingRequest.idempotency). */
export interface Idempotency {
  client: IdempotencyClient;
  key: string;
}

/**
 * The key as the booking keeps it: a keyed hash (HMAC-SHA256 with the app's secret) of the client
 * and the key. The same key from another client is another key, a key the app made (an agent's)
 * cannot be written by anyone outside it, and nobody reading a row learns a key to replay.
 */
export function storedIdempotencyKey(secret: string, idempotency: Idempotency) {
  return createHmac("sha256", secret).update(`booking-idempotency:${idempotency.client}\n${idempotency.key}`).digest("base64url");
}

/** What a booking request asks for, as the hash of it kept beside its key. */
export interface RequestedBooking {
  businessId: number;
  serviceId: number;
  start: number;
  /** E.164 (every path normalises the number before booking). */
  phone: string;
  name: string;
  email: string | null;
  notes: string | null;
  language: string;
}

const text = (value: string | null) => (value ?? "").normalize("NFC").replace(/\r\n?/g, "\n").trim();

/**
 * The hash of a request's normalised content (business, service, start, customer's name, phone,
 * e-mail, notes, language): a key replays its booking only for a request with the same hash, so a
 * double click or a retry gets its booking and any other body gets nothing of it (replayOf).
 * Spacing in the name and the case of the e-mail address do not make another request.
 */
export function bookingRequestHash(request: RequestedBooking) {
  const content = [
    request.businessId,
    request.serviceId,
    request.start,
    request.phone,
    text(request.name).replace(/\s+/g, " "),
    text(request.email).toLowerCase(),
    text(request.notes),
    request.language,
  ];
  return createHash("sha256").update(JSON.stringify(content)).digest("base64url");
}
