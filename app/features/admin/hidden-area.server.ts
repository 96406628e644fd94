import { RouterContextProvider, type ServerBuild } from "react-router";
import { getSignedIn } from "~/features/auth/index.server";
import { servicesContext } from "~/platform/context";
import type { AppServices } from "~/platform/services.server";

/**
 * The admin area does not exist for anyone but an admin who passed the second factor. Refusing
 * inside the area (its layout's 404) still differs from a path no route claims: the form-token
 * check runs first (403 to a POST), the error names the admin layout in `.data` answers, the
 * page renders without the root's data, and React Router's `/__manifest` lists the area's routes
 * to anyone who asks. So a stranger's request that may concern the area is answered by the same
 * app with the area's routes taken out: /admin/anything is then the unknown-path 404, for every
 * method, and the manifest has nothing to list.
 */

/** The build without the admin area's routes (the layout and everything under it). */
export function withoutAdminArea(build: ServerBuild): ServerBuild {
  const hidden = new Set<string>();
  const isHidden = (id: string | undefined): boolean => {
    if (!id) return false;
    if (hidden.has(id) || id.startsWith("routes/admin/")) return true;
    return isHidden(build.routes[id]?.parentId);
  };
  for (const id of Object.keys(build.routes)) if (isHidden(id)) hidden.add(id);
  const keep = <T>(routes: Record<string, T>) => Object.fromEntries(Object.entries(routes).filter(([id]) => !hidden.has(id)));
  return { ...build, routes: keep(build.routes), assets: { ...build.assets, routes: keep(build.assets.routes) } };
}

/** The same, for a build given as a function (development loads it afresh). */
export function strangersBuild(build: ServerBuild | (() => Promise<ServerBuild>)) {
  return typeof build === "function" ? async () => withoutAdminArea(await build()) : withoutAdminArea(build);
}

/**
 * Whether a request might reach the admin area: its path, or the paths it asks the manifest
 * about (`?paths=`), mention "admin" in any case or encoding (routes match case-insensitively and
 * decoded). Saying yes too often only costs a session look-up: outside the area both builds
 * answer alike.
 */
export function mayConcernAdminArea(url: URL) {
  const mentions = (text: string) => /admin/i.test(text) || /admin/i.test(decoded(text));
  return mentions(url.pathname) || mentions(url.searchParams.get("paths") ?? "");
}

function decoded(text: string) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Whether this request comes from an admin whose session passed the second factor. */
export async function isSignedInAdmin(services: AppServices, url: URL, cookie: string | undefined) {
  const context = new RouterContextProvider();
  context.set(servicesContext, services);
  const signedIn = await getSignedIn(context, new Request(url, { headers: cookie ? { Cookie: cookie } : {} }));
  return Boolean(signedIn && signedIn.account.role === "admin" && signedIn.secondFactorPassed);
}
