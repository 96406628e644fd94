/** A row action's fields: the intent and a positive integer id, or null (a forged or broken form). */
export async function rowAction(request: Request) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = Number(form.get("id"));
  if (!Number.isSafeInteger(id) || id < 1) return null;
  return { intent, id };
}

/** Back to the page the form was on (same path and page number), never anywhere else. */
export function backTo(request: Request) {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}
