import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webCalls } from "#models/schema";
import type { FakeRealtime } from "../fakes/openai-realtime";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { waitFor } from "../support/wait";

let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, twilio, realtime, close } = await startAppWithFakes({
    twilio: true,
    realtime: { audioSpeed: 10 },
    env: { TRUST_PROXY: "1", SEED_DEMO_DATA: "false" },
  }));
});

afterAll(() => close?.());

let visitor = 0;
const client = () => httpClient(app.url, { forwardedFor: `203.0.113.${++visitor}` });
const text = (html: string) => html.replace(/<[^>]+>/g, "");

describe("call me now", () => {
  it("phones the number read by the spec's rules, with the Saudi agent, and the status page follows the call", async () => {
    const browser = client();
    const response = await browser.postJson("/api/calls/make-call", { to: "050 123 4567", callId: 123456 });
    expect(response.status).toBe(202);
    const body = (await response.json()) as { callId: number; statusUrl: string; message: string };
    expect(body.callId).not.toBe(123456);
    const call = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === "+966501234567"), {
      what: "the call to +966501234567",
      timeoutMs: 20_000,
    });
    await twilio.waitForStatus(call.sid, "in-progress", 20_000);
    await waitFor(async () => (text(await (await browser.get(body.statusUrl)).text()).includes("بدأت المكالمة") ? true : undefined), {
      what: "the page to say the call started",
    });
    twilio.hangup(call.sid);
  });

  it("explains a provider refusal as the spec maps it (21215: no permission for Saudi numbers)", async () => {
    twilio.blockedPrefixes.push("+966");
    try {
      const browser = client();
      const page = await browser.postForm("/call", { intent: "call_me", phone: "0551234567" });
      expect(page.status).toBe(302);
      const statusUrl = page.headers.get("Location")!;
      const html = await waitFor(
        async () => {
          const body = text(await (await browser.get(statusUrl.replace("#call-me", ""))).text());
          return body.includes("فشل في الاتصال") ? body : undefined;
        },
        { what: "the failure on the page", timeoutMs: 20_000 },
      );
      expect(html).toContain("الصلاحيات الدولية");
    } finally {
      twilio.blockedPrefixes.splice(twilio.blockedPrefixes.indexOf("+966"), 1);
    }
  });

  it("refuses an empty number and a number the dialling policy does not allow, in Arabic", async () => {
    const empty = await client().postJson("/api/calls/make-call", { to: "  " });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: string; title: string }).error).toBe("رقم الهاتف مطلوب");
    const premium = await client().postJson("/api/calls/make-call", { to: "+19005550100" });
    expect(premium.status).toBe(400);
    expect([...twilio.calls.values()].some((c) => c.params.To === "+19005550100")).toBe(false);
  });
});

describe("the web call in text", () => {
  it("answers with the language model's reply, with the agent's instructions and the conversation so far", async () => {
    realtime.scriptChat([{ say: "أهلاً وسهلاً! كيف أقدر أخدمك اليوم؟" }, { say: "أكيد، أقدر أساعدك في حجز موعد." }]);
    const browser = client();
    const created = await browser.postJson("/api/calls", {
      customerName: "Fahad",
      phoneNumber: "0501234567",
      status: "active",
      type: "inbound",
      language: "ar-SA",
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const first = await browser.postJson("/api/conversation/process", { message: "السلام عليكم", dialect: "saudi", token });
    expect(first.status).toBe(200);
    expect(((await first.json()) as { message: string }).message).toBe("أهلاً وسهلاً! كيف أقدر أخدمك اليوم؟");
    const second = await browser.postJson("/api/conversation/process", { message: "أبغى أحجز موعد", dialect: "saudi", token });
    expect(((await second.json()) as { message: string }).message).toBe("أكيد، أقدر أساعدك في حجز موعد.");
    const request = realtime.chatRequests.at(-1)!;
    const messages = request.body!.messages as { role: string; content: string }[];
    expect(messages[0]!.content).toContain("اللهجة السعودية");
    expect(messages.map((m) => m.content)).toEqual(
      expect.arrayContaining(["السلام عليكم", "أهلاً وسهلاً! كيف أقدر أخدمك اليوم؟", "أبغى أحجز موعد"]),
    );
  });

  it("answers crisis language with the fixed safety text, not the model's, and flags the conversation", async () => {
    const browser = client();
    const created = await browser.postJson("/api/calls", { customerName: "Sara", phoneNumber: "+966501112233" });
    const { token, id } = (await created.json()) as { token: string; id: number };
    const before = realtime.chatRequests.length;
    const reply = await browser.postJson("/api/conversation/process", { message: "أريد أن أموت", token });
    const { message } = (await reply.json()) as { message: string };
    expect(message).toContain("997");
    expect(realtime.chatRequests.length).toBe(before);
    const [row] = await app.services.db.select().from(webCalls).where(eq(webCalls.id, id));
    expect(row!.flaggedForReview).toBe(true);
  });

  it("works as plain forms without JavaScript: start, send, read the reply, hang up", async () => {
    realtime.scriptChat([{ say: "حياك الله يا نورة." }]);
    const browser = client();
    const invalid = await browser.postForm("/call", { intent: "start_chat", name: "", phone: "123" });
    expect(invalid.status).toBe(400);
    expect(text(await invalid.text())).toContain("يرجى إدخال اسمك للمتابعة");
    const started = await browser.postForm("/call", { intent: "start_chat", name: "Noura", phone: "0501234567" });
    expect(started.status).toBe(302);
    const page = started.headers.get("Location")!.replace("#chat", "");
    const token = new URL(page, app.url).searchParams.get("chat")!;
    const sent = await browser.postForm("/call", { intent: "send", token, message: "مرحبا" }, { tokenFrom: page });
    expect(sent.status).toBe(302);
    const after = text(await (await browser.get(page)).text());
    expect(after).toContain("مرحبا");
    expect(after).toContain("حياك الله يا نورة.");
    await browser.postForm("/call", { intent: "hang_up", token }, { tokenFrom: page });
    expect(text(await (await browser.get(page)).text())).toContain("انتهت المكالمة");
    const late = await browser.postJson("/api/conversation/process", { message: "hello", token });
    expect(late.status).toBe(404);
  });

  it("does not show another conversation to a forged link", async () => {
    const response = await client().get("/call?chat=1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    const body = text(await response.text());
    expect(body).not.toContain("Noura");
    expect(body).toContain("ابدأ المكالمة الآن");
  });
});
