// TwiML: fetching a document from the app (voice URL, fallback, action, redirect) and running it:
// <Say>, <Pause>, <Hangup>/<Reject>, <Redirect> and <Connect><Stream>.
import type { CallbackDelivery, FakeCall } from "./index";
import type { FakeTwilioState } from "./state";
import { runDial, runRecord } from "./inbound";
import { runStream } from "./streams";
import { FINAL_STATUSES, sleep } from "./util";
import { callParams, deliver } from "./webhooks";
import { elements, parseXml, textOf, type XmlElement } from "./xml";

export async function fetchTwiml(
  state: FakeTwilioState,
  call: FakeCall,
  kind: CallbackDelivery["kind"],
  url: string,
  method: string | undefined,
  extra: Record<string, string> = {},
) {
  const answer = await deliver(state, kind, call.sid, url, method, { ...callParams(state, call, call.status), ...extra });
  if (!answer || answer.status < 200 || answer.status >= 300) {
    call.errors.push({ code: 11200, message: `HTTP retrieval failure: ${url} answered ${answer ? answer.status : "nothing"}` });
    return null;
  }
  if (!/^(text\/xml|application\/xml|text\/html)\b/i.test(answer.contentType)) {
    call.errors.push({ code: 12300, message: `Invalid Content-Type "${answer.contentType}" from ${url}` });
    return null;
  }
  return answer.text;
}

/** Runs one TwiML document; resolves when it has ended (or the call has). */
export async function execute(
  state: FakeTwilioState,
  call: FakeCall,
  xml: string,
  documentUrl: string | undefined,
  depth = 0,
): Promise<void> {
  const runtime = state.runtimes.get(call.sid)!;
  const { signal } = runtime.abort;
  const ended = () => signal.aborted || FINAL_STATUSES.includes(call.status);
  call.documents.push(xml);
  call.twiml ??= xml;
  let root: XmlElement;
  try {
    root = parseXml(xml);
  } catch (error) {
    call.errors.push({ code: 12100, message: `Document parse failure: ${(error as Error).message}` });
    return;
  }
  if (root.name !== "Response") {
    call.errors.push({ code: 12100, message: `Document parse failure: the root element is <${root.name}>, not <Response>` });
    return;
  }
  const resolveUrl = (url: string) => (documentUrl ? new URL(url, documentUrl).toString() : url);

  for (const verb of elements(root)) {
    if (ended()) return;
    switch (verb.name) {
      case "Say": {
        const loops = Number(verb.attrs.loop ?? 1);
        const text = textOf(verb);
        for (let n = 0; (loops === 0 || n < loops) && !ended(); n++) {
          call.said.push(text);
          await sleep(state.timing.sayMs, signal);
        }
        break;
      }
      case "Pause":
        await sleep(Number(verb.attrs.length ?? 1) * 1000 * state.timing.pauseScale, signal);
        break;
      case "Hangup":
      case "Reject":
        return;
      case "Redirect": {
        if (depth > 20) {
          call.errors.push({ code: 12100, message: "Too many redirects" });
          return;
        }
        const next = await fetchTwiml(state, call, "redirect", resolveUrl(textOf(verb)), verb.attrs.method);
        if (next !== null && !ended()) await execute(state, call, next, resolveUrl(textOf(verb)), depth + 1);
        return;
      }
      case "Connect": {
        const stream = elements(verb).find((e) => e.name === "Stream");
        if (!stream) {
          call.errors.push({ code: 12200, message: `Unsupported <Connect> noun: ${elements(verb)[0]?.name ?? "none"}` });
          break;
        }
        await runStream(state, call, stream);
        if (ended()) return;
        const redirect = runtime.redirect;
        if (redirect) {
          runtime.redirect = null;
          if ("twiml" in redirect) return execute(state, call, redirect.twiml, undefined, depth + 1);
          const next = await fetchTwiml(state, call, "redirect", redirect.url, redirect.method);
          if (next !== null && !ended()) await execute(state, call, next, redirect.url, depth + 1);
          return;
        }
        if (verb.attrs.action) {
          const next = await fetchTwiml(state, call, "action", resolveUrl(verb.attrs.action), verb.attrs.method);
          if (next !== null && !ended()) await execute(state, call, next, resolveUrl(verb.attrs.action), depth + 1);
          return;
        }
        break;
      }
      case "Dial": {
        const next = await runDial(state, call, verb, resolveUrl);
        if (next === null) break;
        if (!ended()) await execute(state, call, next.xml, next.url, depth + 1);
        return;
      }
      case "Record": {
        const next = await runRecord(state, call, verb, resolveUrl, documentUrl);
        if (next === null) break;
        if (!ended()) await execute(state, call, next.xml, next.url, depth + 1);
        return;
      }
      default:
        call.errors.push({ code: 12200, message: `Schema validation warning: <${verb.name}> is not modelled by the fake Twilio` });
    }
  }
}
