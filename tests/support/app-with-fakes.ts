import Stripe from "stripe";
import { startFakeRealtime, type FakeRealtime, type FakeRealtimeOptions } from "../fakes/openai-realtime";
import { startFakeSmtp } from "../fakes/smtp";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio, type FakeTwilioOptions } from "../fakes/twilio";
import { startAppInProcess } from "./app-in-process";

export type InProcessApp = Awaited<ReturnType<typeof startAppInProcess>>;
export type FakeSmtp = Awaited<ReturnType<typeof startFakeSmtp>>;

export interface FakeStripeSetup {
  /** The app's STRIPE_WEBHOOK_SECRET. */
  webhookSecret?: string;
  /**
   * Where the fake sends its events: to the app's /webhooks/stripe signed with `webhookSecret`
   * ("app"), there but signed with a secret the app refuses (`{ signedWith }`: the app acts on
   * requests only), or nowhere (the default: the test posts what it needs).
   */
  webhooks?: "app" | { signedWith: string };
  /** Pages load Stripe.js from the fake too (STRIPE_JS_URL). */
  stripeJs?: boolean;
}

export interface AppWithFakesOptions {
  stripe?: boolean | FakeStripeSetup;
  twilio?: boolean | FakeTwilioOptions;
  realtime?: boolean | FakeRealtimeOptions;
  smtp?: boolean;
  /** The rest of the app's environment (TRUST_PROXY, SEED_DEMO_DATA, limits…); it wins over the fakes'. */
  env?: Record<string, string>;
}

type Wanted<O, K extends string, T> = O extends { [key in K]: infer V } ? (V extends false | undefined ? undefined : T) : undefined;

export type AppWithFakes<O extends AppWithFakesOptions> = {
  /** The app as its users reach it. */
  url: string;
  app: InProcessApp;
  services: InProcessApp["services"];
  stripe: Wanted<O, "stripe", FakeStripe>;
  /** The real Stripe SDK pointed at the fake, to act as Stripe's dashboard or a customer would. */
  stripeApi: Wanted<O, "stripe", Stripe>;
  twilio: Wanted<O, "twilio", FakeTwilio>;
  realtime: Wanted<O, "realtime", FakeRealtime>;
  smtp: Wanted<O, "smtp", FakeSmtp>;
  /**
   * Ends it all as a test file's afterAll should: the people on live calls hang up and their
   * callbacks are delivered, the app stops, then the fakes close.
   */
  close(): Promise<void>;
};

/** The variables that point the app's Stripe SDK at the fake. */
export function stripeEnv(stripe: FakeStripe, webhookSecret?: string): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
    STRIPE_API_URL: stripe.url,
    ...(webhookSecret ? { STRIPE_WEBHOOK_SECRET: webhookSecret } : {}),
  };
}

/** The variables that point the app's Twilio SDK at the fake, calling from its first number. */
export function twilioEnv(twilio: FakeTwilio): Record<string, string> {
  return {
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
    TWILIO_API_URL: twilio.url,
  };
}

/** The variables that point the app's OpenAI SDK (realtime and REST) at the fake. */
export function realtimeEnv(realtime: FakeRealtime): Record<string, string> {
  return { OPENAI_API_KEY: realtime.apiKey, OPENAI_BASE_URL: realtime.url };
}

/** The real Stripe SDK talking to the fake. */
export function stripeClient(stripe: FakeStripe): Stripe {
  const url = new URL(stripe.url);
  return new Stripe(stripe.secretKey, { host: url.hostname, port: Number(url.port), protocol: "http" });
}

const options = <T extends object>(value: boolean | T | undefined): T | undefined =>
  value === undefined || value === false ? undefined : value === true ? ({} as T) : value;

/**
 * The production build served in this process (startAppInProcess) with the fakes of the
 * providers it calls, each named by the test: they start together, the app's variables point its
 * real SDKs at them, and one close() ends them in the right order.
 */
export async function startAppWithFakes<const O extends AppWithFakesOptions>(setup: O): Promise<AppWithFakes<O>> {
  const stripeSetup = options<FakeStripeSetup>(setup.stripe);
  const twilioOptions = options<FakeTwilioOptions>(setup.twilio);
  const realtimeOptions = options<FakeRealtimeOptions>(setup.realtime);
  const [stripe, twilio, realtime, smtp] = await Promise.all([
    stripeSetup && startFakeStripe(),
    twilioOptions && startFakeTwilio(twilioOptions),
    realtimeOptions && startFakeRealtime(realtimeOptions),
    setup.smtp ? startFakeSmtp() : undefined,
  ]);
  const closeFakes = () => Promise.all([stripe?.close(), twilio?.close(), realtime?.close(), smtp?.close()]);
  let app: InProcessApp;
  try {
    app = await startAppInProcess({
      ...(stripe ? stripeEnv(stripe, stripeSetup?.webhookSecret) : {}),
      ...(stripe && stripeSetup?.stripeJs ? { STRIPE_JS_URL: stripe.jsUrl } : {}),
      ...(twilio ? twilioEnv(twilio) : {}),
      ...(realtime ? realtimeEnv(realtime) : {}),
      ...(smtp ? { SMTP_URL: smtp.url } : {}),
      ...setup.env,
    });
  } catch (error) {
    await closeFakes();
    throw error;
  }
  const webhooks = stripeSetup?.webhooks;
  if (stripe && webhooks) {
    const secret = webhooks === "app" ? stripeSetup.webhookSecret : webhooks.signedWith;
    if (!secret) throw new Error('webhooks: "app" needs a webhookSecret');
    stripe.setWebhook(`${app.url}/webhooks/stripe`, secret);
  }
  const hangUpLiveCalls = () => {
    for (const [sid, call] of twilio?.calls ?? []) {
      if (call.status === "in-progress" || call.status === "ringing") twilio!.hangup(sid);
    }
  };
  return {
    url: app.url,
    app,
    services: app.services,
    stripe,
    stripeApi: stripe && stripeClient(stripe),
    twilio,
    realtime,
    smtp,
    async close() {
      twilio?.clearFailures();
      hangUpLiveCalls();
      await Promise.all([twilio?.flush(), stripe?.flush()]);
      await app.stop();
      // A call the app's queue placed while the others were ending has nobody left to talk to.
      hangUpLiveCalls();
      await closeFakes();
    },
  } as AppWithFakes<O>;
}
