import { useRouteLoaderData } from "react-router";
import type { HelpCountry } from "~/lib/help-lines";
import type { PublicEnv } from "~/platform/env.server";
import type { Toast } from "~/platform/http/toast.server";

/** What the root loader gives every page; components read it here instead of importing root.tsx. */
export interface RootData {
  locale: string;
  csrfToken: string;
  toast: Toast | null;
  publicEnv: PublicEnv;
  /** The visitor's likely country for the help lines (?helpCountry=, else the browser's language and region). */
  helpCountry: HelpCountry;
}

export function useRootData() {
  return useRouteLoaderData("root") as RootData | undefined;
}
