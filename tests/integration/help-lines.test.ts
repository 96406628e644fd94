import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crisisScript } from "~/voice/crisis.server";
import { translatorFor } from "~/platform/i18n.server";
import { empathyFailedEmail } from "#emails/empathy";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";

let app: Awaited<ReturnType<typeof startAppInProcess>>;

beforeAll(async () => {
  app = await startAppInProcess({});
});
afterAll(async () => {
  await app?.stop();
});

/** The home page as a browser with these languages gets it, and the country its crisis box shows. */
async function home(path: string, acceptLanguage: string) {
  const response = await fetch(`${app.url}${path}`, { headers: { "Accept-Language": acceptLanguage } });
  const html = await response.text();
  return { status: response.status, html, country: /data-help-country="([A-Z]{2})"/.exec(html)?.[1] };
}

/** The crisis box alone: the rest of the page has numbers of its own. */
function box(html: string) {
  return /<aside id="help-lines"[\s\S]*?<\/aside>/.exec(html)?.[0] ?? "";
}

describe("the home page's crisis box", () => {
  it("shows Saudi lines to a browser set to ar-SA, numbers isolated", async () => {
    const page = await home("/", "ar-SA,ar;q=0.9");
    expect(page.status).toBe(200);
    expect(page.country).toBe("SA");
    const aside = box(page.html);
    expect(aside).toContain('href="tel:997"');
    expect(aside).toContain('<bdi dir="ltr">911</bdi>');
    expect(aside).toContain("المركز الوطني لتعزيز الصحة النفسية");
    expect(aside).toContain('href="tel:920033360"');
    expect(aside).toContain('<bdi dir="ltr">937</bdi>');
    // A confirmed line replaces the directory.
    expect(aside).not.toContain("findahelpline.com");
    expect(aside).not.toContain("116 123");
  });

  it("shows the directory where no line could be confirmed", async () => {
    const aside = box((await home("/?helpCountry=KW", "ar-KW")).html);
    expect(aside).toContain('href="tel:112"');
    expect(aside).toContain("findahelpline.com");
  });

  it("shows German lines to a browser set to de-DE", async () => {
    const page = await home("/", "de-DE,de;q=0.9,en;q=0.5");
    expect(page.country).toBe("DE");
    const aside = box(page.html);
    expect(aside).toContain("TelefonSeelsorge");
    expect(aside).toContain("0800 111 0 111");
    expect(aside).toContain('href="tel:112"');
    expect(aside).not.toContain("988");
  });

  it("switches to the country chosen in the query string, and offers every country in the page's language", async () => {
    const page = await home("/?helpCountry=EG", "de-DE");
    expect(page.country).toBe("EG");
    const aside = box(page.html);
    expect(aside).toContain('href="tel:123"');
    expect(aside).toContain("Ägypten");
    expect(aside).toMatch(/<form [^>]*action="\/#help-lines"[^>]*method="get"/);
    expect(aside).toMatch(/<option value="EG" selected="">Ägypten<\/option>/);
    expect(aside.match(/<option /g)).toHaveLength(47);
  });

  it.each([
    ["an unknown code", "XX"],
    ["an empty value", ""],
    ["markup", "<script>"],
    ["an object's own property name", "toString"],
    ["__proto__", "__proto__"],
    ["5000 characters", "a".repeat(5000)],
  ])("falls back, without an error, for %s", async (value) => {
    const page = await home(`/?helpCountry=${encodeURIComponent(value)}`, "de-DE");
    expect(page.status).toBe(200);
    expect(page.country).toBe("DE");
  });

  it("follows the number once the visitor has given it", async () => {
    const visitor = httpClient(app.url);
    const posted = await visitor.postForm(
      "/?index",
      { phone: "+966 55 123 4567", language: "arabic", voice: "female", email: "", adult: "on", recording: "on" },
      { tokenFrom: "/" },
    );
    expect(posted.status).toBe(302);
    const html = await (await visitor.get("/?step=payment")).text();
    expect(/data-help-country="([A-Z]{2})"/.exec(html)?.[1]).toBe("SA");
    // Choosing another country on the payment step keeps the step.
    expect(box(html)).toContain('<input type="hidden" name="step" value="payment"/>');
  });

  it("shows the visitor's country on the other pages that carry the box", async () => {
    for (const path of ["/safety", "/contact", "/faq"]) {
      const page = await home(path, "ar-SA");
      expect(page.status, path).toBe(200);
      expect(page.country, path).toBe("SA");
    }
    expect((await home("/safety?helpCountry=MA", "en-US")).country).toBe("MA");
  });
});

describe("the listener's crisis script", () => {
  it("gives a +966 caller the Saudi emergency numbers and support lines", () => {
    const script = crisisScript("ar", "+966551234567");
    expect(script).toContain("911");
    expect(script).toContain("997");
    expect(script).toContain("المركز الوطني لتعزيز الصحة النفسية على الرقم 920033360");
    expect(script).toContain("937");
    expect(script).not.toContain("findahelpline.com");
    expect(script).not.toContain("988");
  });

  it("gives a +20 caller Egypt's mental-health hotline, and a +965 caller the directory", () => {
    expect(crisisScript("ar", "+201001234567")).toContain("0800 888 0700");
    expect(crisisScript("ar", "+96550012345")).toContain("findahelpline.com");
  });

  it("gives a +49 caller the German lines, in the call's language", () => {
    const german = crisisScript("de", "+4915112345678");
    expect(german).toContain("112");
    expect(german).toContain("TelefonSeelsorge unter 0800 111 0 111");
    expect(german).toContain("0800 111 0 222");
    expect(crisisScript("en", "+4915112345678")).toContain("call TelefonSeelsorge on 0800 111 0 111");
  });

  it("gives the Saudi agent's web visitor without a number the Saudi lines, and an unknown country the directory", () => {
    expect(crisisScript("ar", null, "SA")).toContain("997");
    const unknown = crisisScript("en", "+81312345678");
    expect(unknown).toContain("local emergency number");
    expect(unknown).toContain("findahelpline.com");
  });
});

describe("the empathy e-mail", () => {
  it("lists the called number's country's lines, isolated in Arabic", async () => {
    const t = await translatorFor("ar");
    const mail = empathyFailedEmail(t, "ar", { to: "a@example.com", statusUrl: "http://x/s", minutes: 2, country: "SA" });
    expect(mail.text).toContain("997");
    expect(mail.text).toContain("920033360");
    expect(mail.text).toContain("السعودية");
    expect(mail.html).toContain('<bdi dir="ltr">997</bdi>');
    const german = empathyFailedEmail(await translatorFor("de"), "de", {
      to: "a@example.com",
      statusUrl: "http://x/s",
      minutes: 2,
      country: "DE",
    });
    expect(german.text).toContain("TelefonSeelsorge: 0800 111 0 111");
  });
});
