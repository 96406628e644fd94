// The React Router CLI of the installed @react-router/dev, found through its package.json's
// "bin" (React Router 8 ships bin.cjs where 7 had bin.js: a fixed path broke the first `npm start`).
import { readFileSync } from "node:fs";
import path from "node:path";

export function reactRouterCli(root) {
  const folder = path.join(root, "node_modules/@react-router/dev");
  const { bin } = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
  return path.join(folder, typeof bin === "string" ? bin : bin["react-router"]);
}
