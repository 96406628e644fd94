// ESLint: TypeScript, React hooks and accessibility rules for the whole project. Formatting is
// Prettier's job (eslint-config-prettier switches off the rules that would fight it).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import jsxA11y from "eslint-plugin-jsx-a11y";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["build/", "data/", ".react-router/", "node_modules/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  reactHooks.configs.flat["recommended-latest"] ?? reactHooks.configs.flat.recommended,
  jsxA11y.flatConfigs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: "Read settings from the parsed env (app/platform/env.server.ts), not process.env.",
        },
      ],
    },
  },
  {
    // Entry points, scripts, tests and benchmarks read the environment by design.
    files: [
      "server.js",
      "scripts/**",
      "tests/**",
      "bench/**",
      "app/platform/env.server.ts",
      "*.config.ts",
      "*.config.js",
      "drizzle.config.ts",
    ],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    // Links and forms go through app/ui/link.tsx, which writes their plain markup on the server.
    files: ["app/**"],
    ignores: ["app/ui/link.tsx", "app/ui/link.test.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "react-router",
              importNames: ["Link", "NavLink", "Form"],
              message: "Import Link, NavLink and Form from ~/ui/link (the same markup, written without React Router's work on the server).",
            },
          ],
        },
      ],
    },
  },
  {
    // Test fakes and tests handle the providers' loosely typed JSON on purpose.
    files: ["tests/**", "**/*.test.ts", "bench/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-non-null-assertion": "off" },
  },
  prettier,
);
