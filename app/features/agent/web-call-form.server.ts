import type { TFunction } from "i18next";
import { webCallNumber } from "./phone-rules";

export type WebCallStart =
  | { ok: true; value: { customerName: string; phone: string } }
  | { ok: false; title: string; message: string; fields: Record<string, string[]> };

/** The web call's form (screen 6), with the spec's Arabic messages: a name, and a number of 10 to 15 digits. */
export function checkWebCallStart(t: TFunction, input: { name: unknown; phone: unknown }): WebCallStart {
  const name = typeof input.name === "string" ? input.name.replace(/\s+/g, " ").trim() : "";
  const phoneInput = typeof input.phone === "string" ? input.phone.slice(0, 40) : "";
  if (!name || name.length > 100) {
    return {
      ok: false,
      title: t("agent.nameRequired"),
      message: t("agent.nameRequiredBody"),
      fields: { name: [t("agent.nameRequiredBody")] },
    };
  }
  const phone = webCallNumber(phoneInput);
  if (!phone) {
    return {
      ok: false,
      title: t("agent.phoneInvalidTitle"),
      message: t("agent.phoneInvalid"),
      fields: { phone: [t("agent.phoneInvalid")] },
    };
  }
  return { ok: true, value: { customerName: name, phone } };
}
