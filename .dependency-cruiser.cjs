/**
 * The one-way rule of the codebase: routes → features → the call engine and voice bridge
 * (app/calls, app/voice) → platform and providers → models. A feature reaches another only through
 * the index files it exports. `npm run check:deps` runs this in CI; a violation fails the build.
 * (docs/decisions/0028-call-purposes-register-with-the-engine.md)
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "models-stand-alone",
      severity: "error",
      comment: "The data layer knows tables and queries only; the app depends on it, never the reverse.",
      from: { path: "^models/" },
      to: { path: "^(app|emails)/" },
    },
    {
      name: "platform-and-providers-below-features",
      severity: "error",
      comment: "Platform and providers serve every feature, so they import none (nor routes or the server wiring).",
      from: { path: "^app/(platform|providers)/" },
      to: { path: "^app/(calls|voice|texts|features|routes|server|ui)/|^app/root\\.tsx$|^emails/" },
    },
    {
      name: "calls-and-voice-below-features",
      severity: "error",
      comment:
        "The call engine (calls/) and the voice bridge (voice/) serve every call purpose and import none: each feature registers its purpose (agent, admission, lifecycle) at start-up through app/server/call-purposes.server.ts.",
      from: { path: "^app/(calls|voice|texts)/" },
      to: { path: "^app/(features|routes|server|ui)/|^app/root\\.tsx$" },
    },
    {
      name: "features-meet-through-index-files",
      severity: "error",
      comment:
        "A feature uses another only through what that one exports: index.ts (safe in the browser) or index.server.ts (server only). Its other files are its own.",
      from: { path: "^app/features/([^/]+)/" },
      to: { path: "^app/features/", pathNot: ["^app/features/$1/", "^app/features/[^/]+/index(\\.server)?\\.ts$"] },
    },
    {
      name: "feature-index-is-client-safe",
      severity: "error",
      comment: "A feature's index.ts is imported by pages that run in the browser: server-only API goes in its index.server.ts.",
      from: { path: "^app/features/[^/]+/index\\.ts$" },
      to: { path: "\\.server\\.tsx?$" },
    },
    {
      name: "features-below-routes",
      severity: "error",
      comment: "A feature is called by routes and jobs; it never reaches up into a route, the root or the server wiring.",
      from: { path: "^app/features/" },
      to: { path: "^app/(routes|server)/|^app/root\\.tsx$" },
    },
    {
      name: "shared-code-below-features",
      severity: "error",
      comment: "ui/, lib/, locales/ and e-mail templates are used by features and routes, and use none of them.",
      from: { path: "^(app/(ui|lib|locales)/|emails/)" },
      to: { path: "^app/(calls|voice|texts|features|routes|server)/|^app/root\\.tsx$" },
    },
    {
      name: "lib-is-plain",
      severity: "error",
      comment: "lib/ runs in the browser and on the server: no server code, no providers.",
      from: { path: "^app/lib/" },
      to: { path: "^app/(platform|providers|ui)/|\\.server\\.tsx?$" },
    },
    {
      name: "server-wiring-is-the-top",
      severity: "error",
      comment: "app/server creates the services and the HTTP server; only entry points and tests import it.",
      from: { path: "^app/", pathNot: "^app/server/" },
      to: { path: "^app/server/" },
    },
    {
      name: "no-test-code-in-the-app",
      severity: "error",
      comment: "Fakes and test helpers live in tests/ and are reached through configuration, never imported by the app.",
      from: { path: "^(app|models|emails)/", pathNot: "\\.test\\.tsx?$" },
      to: { path: "^tests/" },
    },
    {
      name: "no-circular",
      severity: "error",
      comment:
        "An import cycle means two modules cannot be understood (or tested) apart. A loop closed by a dynamic import() counts too: hiding a cycle behind one is how the call engine once came to import the agents that use it.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|build|\\.react-router)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".d.ts"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
