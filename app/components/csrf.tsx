import { useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "~/root";

/** The hidden field every state-changing form carries (checked by the CSRF middleware). */
export function AuthenticityTokenInput() {
  const data = useRouteLoaderData<typeof rootLoader>("root");
  return <input type="hidden" name="csrf" value={data?.csrfToken ?? ""} />;
}
