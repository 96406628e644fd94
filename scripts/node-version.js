// The Node the project supports: 22.22 or later, 24 LTS recommended (Node 20 ended on 2026-04-30).
// `npm start` and `npm test` stop at once on an older one, saying how to get Node 24.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 22)) {
  console.error(
    `Sakina needs Node 22.22 or later (Node 24 LTS recommended); this is Node ${process.version}.\n` +
      `Put Node 24 first on the PATH, from the npm registry: export PATH="$(bash scripts/node24.sh):$PATH"`,
  );
  process.exit(1);
}
