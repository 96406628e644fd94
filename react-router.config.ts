import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // Routes are discovered as links appear, through /__manifest, which the server answers without
  // the admin area for anyone but an admin. "initial" would write every route, the admin area's
  // too, into every page.
  routeDiscovery: { mode: "lazy", manifestPath: "/__manifest" },
} satisfies Config;
