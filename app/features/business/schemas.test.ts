import i18next from "i18next";
import { describe, expect, it } from "vitest";
import en from "~/locales/en";
import { registrationSchema } from "./schemas";

describe("registrationSchema (the check the browser runs before posting)", () => {
  it("says a phone of two digits is wrong in the same pass as a wrong e-mail", async () => {
    const i18n = i18next.createInstance();
    await i18n.init({ lng: "en", resources: { en: { translation: en } } });
    const result = registrationSchema(i18n.t).safeParse({ name: "Studio", ownerName: "Nour", email: "nour@", phone: "12" });
    expect(result.success).toBe(false);
    const messages = result.error!.issues.map((issue) => [issue.path.join("."), issue.message]);
    expect(messages).toContainEqual(["email", en.register.emailInvalid]);
    expect(messages).toContainEqual(["phone", en.register.phoneInvalid]);
  });

  it("leaves a plausible number to the server's full check", async () => {
    const i18n = i18next.createInstance();
    await i18n.init({ lng: "en", resources: { en: { translation: en } } });
    const result = registrationSchema(i18n.t).safeParse({
      name: "Studio",
      ownerName: "Nour",
      email: "nour@example.com",
      phone: "+1 (212) 555-0100",
    });
    expect(result.success).toBe(true);
  });
});
