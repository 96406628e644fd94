import type { Page } from "playwright-core";

export type PhoneState = "choose" | "choose-error" | "connected" | "settings-error" | "confirm-disconnect";
export const PHONE_STATES: PhoneState[] = ["choose", "choose-error", "connected", "settings-error", "confirm-disconnect"];

/**
 * The owner's phone page (/dashboard/phone) in each of its states with Twilio configured, as the
 * owner reaches them signed in on `page`: the numbers to choose from, a submit without a choice,
 * the connected number with its settings, bad settings refused beside their fields, and the
 * disconnect's confirmation. `onState` looks at each (axe, a screenshot). Ends disconnected, so
 * it can be walked again.
 */
export async function walkPhoneStates(page: Page, appUrl: string, language: string, onState: (state: PhoneState) => Promise<void>) {
  const phone = `${appUrl}/dashboard/phone?lng=${language}`;
  await page.goto(phone, { waitUntil: "networkidle" });
  // Left connected by a walk that failed half-way: start from the beginning.
  if (await page.locator("#phone-connected").count()) {
    await page.goto(`${phone}&confirm=disconnect`, { waitUntil: "networkidle" });
    await page.locator("form:has(input[value=disconnect-number]) button").click();
    await page.locator("input[name=numberSid]").first().waitFor();
  }
  await onState("choose");

  await page.locator("form:has(input[value=connect-number]) button[type=submit]").click();
  await page.locator("#phone-number-error").waitFor();
  await onState("choose-error");

  await page.locator("input[name=numberSid]").first().check();
  await page.locator("form:has(input[value=connect-number]) button[type=submit]").click();
  await page.locator("#phone-connected").waitFor();
  await onState("connected");

  await page.locator("#phone-transfer").fill("+44 909 876 5432");
  await page.locator("#phone-concurrent").fill("0");
  await page.locator("form:has(input[value=save-number-settings]) button[type=submit]").last().click();
  await page.locator("#phone-transfer[aria-invalid=true]").waitFor();
  await onState("settings-error");

  await page.goto(phone, { waitUntil: "networkidle" });
  await page.locator("form:has(input[value=disconnect]) button[type=submit]").click();
  await page.locator("form:has(input[value=disconnect-number])").waitFor();
  await onState("confirm-disconnect");

  await page.locator("form:has(input[value=disconnect-number]) button").click();
  await page.locator("input[name=numberSid]").first().waitFor();
}
