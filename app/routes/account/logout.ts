import { redirect } from "react-router";
import type { Route } from "./+types/logout";
import { commitLogout } from "~/features/auth/auth.server";
import { servicesContext } from "~/platform/context";

/** POST only (a form with the CSRF token), so a link on another site cannot sign anyone out. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  return redirect("/", { headers: { "Set-Cookie": await commitLogout(services, request) } });
}

export function loader() {
  return redirect("/");
}
