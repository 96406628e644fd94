// Small helpers the fake Twilio's resources share: final statuses and their SIP codes, the API
// version, Twilio error values, RFC 2822 dates, number formatting, form parameters, URLs and an
// abortable sleep.
import type { CallStatus, FormParams } from "./index";

export const FINAL_STATUSES: CallStatus[] = ["completed", "busy", "no-answer", "failed", "canceled"];
export const SIP_CODES: Record<string, string> = { completed: "200", busy: "486", "no-answer": "487", failed: "404", canceled: "487" };

export type TwilioError = { status: number; code: number; message: string };

export const API_VERSION = "2010-04-01";

export function rfc2822(date: Date) {
  return date.toUTCString().replace("GMT", "+0000");
}

export function twilioError(status: number, code: number, message: string): TwilioError {
  return { status, code, message };
}

export function formatted(number: string) {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(number);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : number;
}

export function first(params: FormParams, name: string): string | undefined {
  const value = params[name];
  return Array.isArray(value) ? value[0] : value;
}

export function isHttpUrl(value: string) {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

export function sleep(ms: number, signal?: AbortSignal) {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
