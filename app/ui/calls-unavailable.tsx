import { useTranslation } from "~/ui/translation";

/** The id of the notice, for the disabled submit's `aria-describedby`. */
export const CALLS_UNAVAILABLE_ID = "calls-unavailable";

/**
 * The calm notice at the top of a form that asks for a phone call, when this server cannot place
 * one: said before anyone types, and the same on every page (the home page, the business demo, the
 * owner's test call, /call). The form's submit is disabled and points here.
 */
export function CallsUnavailable({ reason, className = "" }: { reason: "telephony" | "voice" | null; className?: string }) {
  const { t } = useTranslation();
  if (!reason) return null;
  return (
    <p
      id={CALLS_UNAVAILABLE_ID}
      role="status"
      className={`rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-950 ${className}`}
    >
      {t(reason === "telephony" ? "common.callsNotConfigured" : "common.voiceNotConfigured")}
    </p>
  );
}
