import { data, redirect } from "react-router";
import type { Route } from "./+types/call";
import { callMeCall, callMeState, placeCallMe, telephonyIsTrial } from "~/features/agent/call-me.server";
import {
  converseInWebCall,
  exceededConversationLimit,
  exceededWebCallLimit,
  hangUpWebCall,
  startWebCall,
  webCallOf,
} from "~/features/agent/conversation.server";
import { MAX_MESSAGE_LENGTH } from "~/features/agent/chat";
import { checkWebCallStart } from "~/features/agent/web-call-form.server";
import { clientIp } from "~/platform/security/rate-limit.server";
import { servicesContext } from "~/platform/context";
import { callsUnavailable } from "~/calls/readiness.server";
import { getT } from "~/platform/i18n.server";
import { AiError, AiNotConfiguredError } from "~/providers/ai.server";
import { CallPage } from "~/features/agent/call-page";

/**
 * /call: the Saudi customer-service agent's hub (spec screens 6 and 7), in Arabic unless the
 * visitor chose another language. "Call me now" places a real call; the browser conversation is
 * kept on the server, so both work as plain forms without JavaScript.
 */
export async function loader({ url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const callMe = await callMeCall(services, url.searchParams.get("call"));
  const chat = await webCallOf(services, url.searchParams.get("chat"));
  return {
    title: `${t("agent.title")} · Sakina`,
    callsUnavailable: callsUnavailable(services),
    aiConfigured: services.textModel.configured,
    liveVoice: services.voiceModel.configured,
    trial: await telephonyIsTrial(services),
    testNumber: services.env.CALL_ME_TEST_NUMBER ?? null,
    callMe: callMe ? { token: url.searchParams.get("call")!, ...callMeState(t, callMe) } : null,
    chat: chat
      ? {
          token: url.searchParams.get("chat")!,
          name: chat.customerName,
          phone: chat.phone,
          active: chat.status === "active",
          startedAt: chat.createdAt.toISOString(),
          messages: chat.messages,
        }
      : null,
  };
}

type Problems = { fields: Record<string, string[]>; form: string | null; intent: string };

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const form = Object.fromEntries(await request.formData());
  const fail = (intent: string, problem: Partial<Problems>, status = 400) =>
    data(
      {
        intent,
        fields: problem.fields ?? {},
        form: problem.form ?? null,
        values: { phone: String(form.phone ?? "").slice(0, 40), name: String(form.name ?? "").slice(0, 100) },
      },
      { status },
    );
  switch (form.intent) {
    case "call_me": {
      const number = form.useTest === "1" && services.env.CALL_ME_TEST_NUMBER ? services.env.CALL_ME_TEST_NUMBER : String(form.phone ?? "");
      const placed = await placeCallMe(context, t, number);
      if (!placed.ok) return fail("call_me", { fields: { phone: [placed.message] } }, placed.status);
      return redirect(`/call?call=${placed.token}#call-me`);
    }
    case "start_chat": {
      const checked = checkWebCallStart(t, { name: form.name, phone: form.phone });
      if (!checked.ok) return fail("start_chat", { fields: checked.fields });
      const exceeded = await exceededWebCallLimit(context);
      if (exceeded) return fail("start_chat", { form: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }) }, 429);
      const started = await startWebCall(services, checked.value);
      return redirect(`/call?chat=${started.token}#chat`);
    }
    case "send":
    case "hang_up": {
      const token = String(form.token ?? "");
      const call = await webCallOf(services, token);
      if (!call || call.status !== "active") return fail(form.intent, { form: t("agent.chatNotFound") }, 404);
      if (form.intent === "hang_up") {
        await hangUpWebCall(services, call);
        return redirect(`/call?chat=${token}#chat`);
      }
      const message = String(form.message ?? "").trim();
      if (!message) return fail("send", { fields: { message: [t("agent.messageEmpty")] } });
      if (message.length > MAX_MESSAGE_LENGTH) return fail("send", { fields: { message: [t("agent.processFailed")] } });
      const exceeded = await exceededConversationLimit(context);
      if (exceeded) return fail("send", { form: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }) }, 429);
      try {
        await converseInWebCall(services, call, message, { ip: clientIp(context) });
      } catch (error) {
        if (error instanceof AiNotConfiguredError) return fail("send", { form: t("agent.aiNotConfigured") }, 503);
        if (error instanceof AiError) return fail("send", { form: t("agent.processFailed") }, 502);
        throw error;
      }
      return redirect(`/call?chat=${token}#chat`);
    }
    default:
      throw data(null, { status: 400 });
  }
}

export default function Call({ loaderData, actionData }: Route.ComponentProps) {
  return <CallPage loaderData={loaderData} actionData={actionData} />;
}
