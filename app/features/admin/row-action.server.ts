import type { TFunction } from "i18next";
import { data } from "react-router";
import { parseDbId } from "~/lib/ids";
import { safeRedirect } from "~/lib/safe-redirect";

/**
 * A row action's fields: the intent and the row's id. An id that is no row id (text, 0, 2^31 and
 * up) is a forged or broken form: answered 400 with why, never handed to the database.
 */
export async function rowAction(request: Request, t: TFunction) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = parseDbId(form.get("id"));
  if (id === null) throw data({ message: t("admin.invalidRowId") }, { status: 400 });
  return { intent, id };
}

/** Back to the page the form was on (same path and page number), never anywhere else. */
export function backTo(url: URL) {
  return safeRedirect(`${url.pathname}${url.search}`, "/admin");
}
