import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./models/schema.ts",
  out: "./models/migrations",
});
