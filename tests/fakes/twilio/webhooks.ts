// Requests to the app: each one signed (X-Twilio-Signature), sent and recorded as a callback
// delivery; the parameters of a call, and its status callbacks, queued one after the other.
import { randomUUID } from "node:crypto";
import http from "node:http";
import https from "node:https";
import twilio from "twilio";
import type { CallbackDelivery, CallStatus, FakeCall } from "./index";
import { track, type FakeTwilioState } from "./state";
import { API_VERSION, FINAL_STATUSES, SIP_CODES, first, rfc2822 } from "./util";

function httpRequest(url: string, method: "GET" | "POST", headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; contentType: string; text: string }>((resolve, reject) => {
    const target = new URL(url);
    const request = (target.protocol === "https:" ? https : http).request(
      target,
      {
        method,
        headers: { ...headers, ...(method === "POST" ? { "Content-Length": String(Buffer.byteLength(body)) } : {}) },
        agent: false,
        timeout: 15_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers["content-type"] ?? ""),
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error("Timed out after 15 s")));
    request.on("error", reject);
    request.end(method === "POST" ? body : undefined);
  });
}

/** Signs and sends one request to the app, records it, and returns the answer (null: nothing answered). */
export async function deliver(
  state: FakeTwilioState,
  kind: CallbackDelivery["kind"],
  callSid: string,
  rawUrl: string,
  rawMethod: string | undefined,
  params: Record<string, string>,
) {
  const method = (rawMethod ?? "POST").toUpperCase() === "GET" ? "GET" : "POST";
  let url = rawUrl;
  let body = "";
  let signedParams: Record<string, string> = params;
  if (method === "GET") {
    const query = new URLSearchParams(params).toString();
    url = rawUrl + (rawUrl.includes("?") ? "&" : "?") + query;
    signedParams = {};
  } else {
    body = new URLSearchParams(params).toString();
  }
  const headers: Record<string, string> = {
    "X-Twilio-Signature": twilio.getExpectedTwilioSignature(state.authToken, url, signedParams),
    "I-Twilio-Idempotency-Token": randomUUID(),
    "User-Agent": "TwilioProxy/1.1",
    Accept: "*/*",
    "Cache-Control": "max-age=259200",
    "X-Home-Region": "us1",
    ...(method === "POST" ? { "Content-Type": "application/x-www-form-urlencoded" } : {}),
  };
  const delivery: CallbackDelivery = { kind, callSid, url, method, params, headers, body, status: 0 };
  state.callbackDeliveries.push(delivery);
  return sendDelivery(state, delivery);
}

export async function sendDelivery(state: FakeTwilioState, delivery: CallbackDelivery) {
  if (state.closing) return null;
  try {
    const answer = await httpRequest(delivery.url, delivery.method, delivery.headers, delivery.body);
    delivery.status = answer.status;
    return answer;
  } catch (error) {
    delivery.error = (error as Error).message;
    return null;
  }
}

export function callParams(state: FakeTwilioState, call: FakeCall, status: string): Record<string, string> {
  const from = first(call.params, "From")!;
  const to = first(call.params, "To")!;
  return {
    AccountSid: state.accountSid,
    ApiVersion: API_VERSION,
    CallSid: call.sid,
    CallStatus: status,
    Called: to,
    Caller: from,
    Direction: call.direction,
    From: from,
    To: to,
  };
}

function requestedEvents(call: FakeCall) {
  const raw = call.params.StatusCallbackEvent;
  return new Set((Array.isArray(raw) ? raw : raw ? [raw] : []).flatMap((e) => e.split(/\s+/)));
}

/** Queues a status callback: each call's callbacks go out one after the other. */
export function statusCallback(state: FakeTwilioState, call: FakeCall, status: CallStatus) {
  const url = first(call.params, "StatusCallback");
  const runtime = state.runtimes.get(call.sid);
  if (!url || !runtime) return;
  const final = FINAL_STATUSES.includes(status);
  const event = status === "in-progress" ? "answered" : final ? "completed" : status;
  if (!final && !requestedEvents(call).has(event)) return;
  const params: Record<string, string> = {
    ...callParams(state, call, status),
    Timestamp: rfc2822(new Date()),
    CallbackSource: "call-progress-events",
    SequenceNumber: String(runtime.sequence++),
  };
  if (final) {
    const seconds = call.duration ?? 0;
    params.CallDuration = String(seconds);
    params.Duration = String(Math.ceil(seconds / 60));
    params.SipResponseCode = SIP_CODES[status] ?? "200";
  }
  const method = first(call.params, "StatusCallbackMethod");
  const lost = state.lostCallbacks.get(first(call.params, "To")!);
  if (lost?.delete(status)) {
    // Lost on the way (a network blip, the app restarting): recorded as a delivery nothing
    // answered, and, as Twilio does, never sent again.
    state.callbackDeliveries.push({
      kind: "status",
      callSid: call.sid,
      url,
      method: method === "GET" ? "GET" : "POST",
      params,
      headers: {},
      body: "",
      status: 0,
      error: "lost (loseStatusCallback)",
    });
    return;
  }
  runtime.callbackChain = track(
    state,
    runtime.callbackChain.then(() => deliver(state, "status", call.sid, url, method, params)).then(() => undefined),
  );
}
