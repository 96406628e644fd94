import { Outlet } from "react-router";
import type { Route } from "./+types/layout";
import { requireAdmin } from "~/features/admin/access.server";
import { AdminShell } from "~/features/admin/admin-ui";
import type { ShellHandle } from "~/ui/shell/shell";

/** The admin area's own frame, without the site's marketing header and footer. */
export const handle: ShellHandle = { shell: "owner" };

/**
 * Everyone but an admin who passed the second factor gets 404, before any loader or action of
 * the area runs, for every method (a POST to a page without a form is a 404 too, not a 405).
 * Each loader and action asks requireAdmin again for the admin it acts as.
 */
export const middleware: Route.MiddlewareFunction[] = [
  async ({ request, context }, next) => {
    await requireAdmin(context, request);
    return next();
  },
];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { admin } = await requireAdmin(context, request);
  return { email: admin.email };
}

export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  return (
    <AdminShell email={loaderData.email}>
      <Outlet />
    </AdminShell>
  );
}
