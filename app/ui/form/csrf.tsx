import { useRootData } from "~/ui/shell/root-data";

/** The hidden field every state-changing form carries (checked by the CSRF middleware). */
export function AuthenticityTokenInput() {
  const data = useRootData();
  return <input type="hidden" name="csrf" value={data?.csrfToken ?? ""} />;
}
