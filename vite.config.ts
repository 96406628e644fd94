/// <reference types="vitest/config" />
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { readdirSync } from "node:fs";
import path from "node:path";
import { defineConfig, type Plugin } from "vite";
import { precompressFolder } from "./app/platform/http/precompressed.server.ts";

/** The test files under these folders (`*.test.ts`, `*.test.tsx`), as paths from the project's root. */
function testFiles(folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(folder, { recursive: true, encoding: "utf8" })
      .filter((file) => /\.test\.tsx?$/.test(file))
      .map((file) => `${folder}/${file.split(path.sep).join("/")}`),
  );
}

/** After the client build, the compressed copies of its scripts and styles the server sends (app/platform/http/precompressed.server.ts). */
function precompressAssets(): Plugin {
  return {
    name: "sakina-precompress-assets",
    apply: "build",
    async writeBundle(output) {
      if (output.dir && path.basename(output.dir) === "client") await precompressFolder(path.join(output.dir, "assets"));
    },
  };
}

/** The files that run each in a process of its own: the browser tests (see `projects` below). */
const ISOLATED = testFiles(["tests/e2e"]);
/** The scan of the log the other tests wrote: `npm test` runs it after them (scripts/test.js). */
const LOG_SCAN = testFiles(["tests/log-scan"]);

export default defineConfig(({ mode }) =>
  mode === "bridge"
    ? {
        // `vite build --mode bridge`: the call-audio bridge's own server bundle (bridge.js runs it),
        // only what a call's audio needs; its packages stay in node_modules, as in the app's build.
        build: {
          ssr: "./app/server/bridge-server.ts",
          outDir: "build/bridge",
          emptyOutDir: true,
          copyPublicDir: false,
          rollupOptions: { output: { entryFileNames: "index.js" } },
        },
        resolve: { tsconfigPaths: true },
      }
    : {
        // The production server module wraps the React Router build in an Express app that can also
        // take WebSocket upgrades (the phone-call audio bridge); server.js starts it.
        environments: { ssr: { build: { rollupOptions: { input: "./app/server/http.server.ts" } } } },
        plugins: process.env.VITEST ? [] : [tailwindcss(), reactRouter(), precompressAssets()],
        // Tests run React's production build, as the app does (tests/support/setup.ts): JSX in a
        // test compiles to its production runtime too.
        oxc: process.env.VITEST ? { jsx: { runtime: "automatic", development: false } } : undefined,
        resolve: { tsconfigPaths: true },
        test: {
          setupFiles: ["tests/support/setup.ts"],
          // The production build, which in-process apps serve (tests/support/app-in-process.ts),
          // is plain JavaScript: Node loads it as `npm start` does, not through Vite's transform.
          server: { deps: { external: [/\/build\/(server|bridge)\//] } },
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Three files at a time on this 2-core machine: an integration file spends much of its
          // time waiting (call audio played in real time, job queue polls), and with two the cores
          // were idle a fifth of the suite (bench/README.md, "CI's time").
          maxWorkers: 3,
          // Each in-process app starts an embedded PGlite, whose WebAssembly V8 would compile a
          // second time, optimised, as its functions get hot: about 2 s of CPU per app start, more
          // than a test file's queries win back. The suite took 9 % less CPU with the baseline
          // compiler only (the same code, compiled once). The app itself (`npm start`) is untouched.
          execArgv: ["--liftoff-only"],
          projects: [
            {
              extends: true,
              test: { name: "log-scan", include: LOG_SCAN },
            },
            {
              extends: true,
              test: {
                name: "isolated",
                include: ISOLATED,
                // Each in a process of its own, ended with the file: a browser file once lost its
                // page ("Not attached to an active page") in a worker shared with other browser files.
                isolate: true,
              },
            },
            {
              extends: true,
              test: {
                name: "rest",
                // Listed rather than excluded: a project's own `exclude` would drop the command line's.
                include: testFiles(["app", "models", "tests"]).filter((file) => !ISOLATED.includes(file) && !LOG_SCAN.includes(file)),
                // A worker runs file after file with the modules it already loaded (the server build,
                // the fakes, the SDKs): loading them afresh for each file was about a third of the
                // suite's CPU (bench/README.md, "CI's time"). Each file still starts its own apps,
                // databases and browsers, and stops them (setup.ts fails a file that leaves an app);
                // a stopped app has ended every call it bridged, so none logs into the next file.
                isolate: false,
              },
            },
          ],
        },
      },
);
