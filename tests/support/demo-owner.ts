import { readFileSync } from "node:fs";
import path from "node:path";
import { httpClient } from "./http-client";

const chosen = new Map<string, string>();

/**
 * The demo owner's password for tests that need a signed-in owner. The seeded password is
 * temporary (the first login must choose another, as every owner's must): this signs in once,
 * chooses a new password through /change-password, and returns it (the same one on every call).
 */
export async function demoOwnerPassword(baseUrl: string, dataDir: string): Promise<string> {
  const known = chosen.get(dataDir);
  if (known) return known;
  const seeded = readFileSync(path.join(dataDir, "demo-owner-password"), "utf8").trim();
  const client = httpClient(baseUrl, { localAddress: "127.0.0.250" });
  const login = await client.postJson("/api/auth/login", { email: "demo@sakina.app", password: seeded });
  if (login.status !== 200) throw new Error(`demo owner login failed: ${login.status}`);
  const { mustChangePassword } = (await login.json()) as { mustChangePassword?: boolean };
  if (!mustChangePassword) {
    chosen.set(dataDir, seeded);
    return seeded;
  }
  const password = `${seeded}-chosen`;
  const changed = await client.postForm("/change-password", { password, confirm: password, redirectTo: "/dashboard" });
  if (changed.status !== 302) throw new Error(`demo owner password change failed: ${changed.status}`);
  chosen.set(dataDir, password);
  return password;
}
