import { createContext, redirect, type MiddlewareFunction } from "react-router";
import { z } from "zod";
import { servicesContext } from "~/platform/context";
import type { AppServices } from "~/platform/services.server";

const toastSchema = z.object({
  type: z.enum(["success", "error", "info"]),
  title: z.string(),
  description: z.string().optional(),
});
export type Toast = z.infer<typeof toastSchema>;

export const toastContext = createContext<Toast | null>(null);

/** Reads the flash toast for this request and clears it once it has been shown. */
export const toastMiddleware: MiddlewareFunction<Response> = async ({ request, context }, next) => {
  const { cookies } = context.get(servicesContext);
  const header = request.headers.get("Cookie");
  // Most requests carry no toast: their cookies are not read and checked for one.
  const parsed = header?.includes("toast=") ? toastSchema.safeParse(await cookies.toast.parse(header)) : null;
  const toast = parsed?.success ? parsed.data : null;
  context.set(toastContext, toast);
  const response = await next();
  const setsNewToast = response.headers.getSetCookie().some((c) => c.startsWith("toast="));
  if (toast && !setsNewToast) {
    response.headers.append("Set-Cookie", await cookies.toast.serialize("", { maxAge: 0 }));
  }
  return response;
};

export async function toastHeader(services: AppServices, toast: Toast) {
  return services.cookies.toast.serialize(toast);
}

export async function redirectWithToast(services: AppServices, url: string, toast: Toast) {
  return redirect(url, { headers: { "Set-Cookie": await toastHeader(services, toast) } });
}
