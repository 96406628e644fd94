import { seal, unseal } from "~/platform/security/secret.server";
import type { AppServices } from "~/platform/services.server";

/**
 * The customer's own page of a booking is /booking/{secret}. Only the secret's hash finds the
 * booking; a sealed copy is kept with it (AES-GCM under the signing secret, as every secret at
 * rest), so the reminder a day later can carry the same link the confirmation e-mail did.
 */
const MANAGE_LINK_SEAL = "booking-manage-link";

/** Seals a booking's manage-link secret: pass to createBooking and renewManageToken. */
export function manageTokenSealer(services: Pick<AppServices, "signingSecret">) {
  return (token: string) => seal(services.signingSecret, MANAGE_LINK_SEAL, token);
}

/** The booking's manage link from its sealed secret, or null (made before reminders, or the signing secret changed). */
export function manageLinkOf(services: Pick<AppServices, "signingSecret" | "publicOrigin">, sealed: string | null) {
  const token = sealed ? unseal(services.signingSecret, MANAGE_LINK_SEAL, sealed) : null;
  return token ? `${services.publicOrigin()}/booking/${token}` : null;
}
