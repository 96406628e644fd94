/// <reference types="vitest/config" />
import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";

export default defineConfig(({ isSsrBuild, mode }) =>
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
        build: isSsrBuild ? { rollupOptions: { input: "./app/server/http.server.ts" } } : undefined,
        plugins: process.env.VITEST ? [] : [tailwindcss(), reactRouter()],
        // Tests run React's production build, as the app does (tests/support/setup.ts): JSX in a
        // test compiles to its production runtime too.
        oxc: process.env.VITEST ? { jsx: { runtime: "automatic", development: false } } : undefined,
        resolve: { tsconfigPaths: true },
        test: {
          include: ["app/**/*.test.{ts,tsx}", "models/**/*.test.ts", "tests/**/*.test.ts"],
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
          // A worker runs file after file with the modules it already loaded (the server build, the
          // fakes, the SDKs): loading them afresh for each of the 110 files was about a third of
          // the suite's CPU (bench/README.md, "CI's time"). Each file still starts its own apps,
          // databases and browsers, and stops them; tests/support/setup.ts is run before each file.
          isolate: false,
        },
      },
);
