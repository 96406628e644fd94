import type { loadServicesPage, loadSettingsPage } from "../dashboard.server";

export type ServiceRow = Awaited<ReturnType<typeof loadServicesPage>>["services"][number];
export type BusinessSettings = Awaited<ReturnType<typeof loadSettingsPage>>["business"];

export interface DashboardActionData {
  intent: string;
  ok: boolean;
  reply?: unknown;
  errors?: Record<string, string[]>;
}

/** Errors for a field of the form whose intent failed last. */
export function errorsFor(actionData: DashboardActionData | undefined, intent: string, field: string): string[] | undefined {
  if (!actionData || actionData.intent !== intent || actionData.ok) return undefined;
  const reply = actionData.reply as { error?: Record<string, string[] | null> } | undefined;
  return actionData.errors?.[field] ?? reply?.error?.[field] ?? undefined;
}

/** What the owner typed in the failed form, so nothing is lost on an error. */
export function submittedValue(actionData: DashboardActionData | undefined, intent: string, field: string): string | undefined {
  if (!actionData || actionData.intent !== intent) return undefined;
  const reply = actionData.reply as { initialValue?: Record<string, unknown> } | undefined;
  const value = reply?.initialValue?.[field];
  return typeof value === "string" ? value : undefined;
}
