import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { accounts, businesses, businessServices } from "#models/schema";
import { replaceWeeklySchedule } from "#models/opening-hours";
import type { Db } from "~/platform/db.server";
import { hashPassword, verifyPassword } from "~/features/auth/index.server";

export const DEMO_EMAIL = "demo@sakina.app";
export const DEMO_BOOKING_LINK = "demo-salon";

/**
 * The demo business a new user can try at once: active, with services and opening hours, and an
 * owner login whose password is random per installation (kept in the data folder to print again).
 * Like every owner's first password it is temporary: the first login asks for a new one. Once
 * that is set the start-up lines no longer print the old one (`password` is null).
 */
export async function seedDemoData(db: Db, dataDir: string) {
  const passwordFile = path.join(dataDir, "demo-owner-password");
  const [existing] = await db.select().from(businesses).where(eq(businesses.email, DEMO_EMAIL));
  if (existing) {
    const [account] = await db.select().from(accounts).where(eq(accounts.email, DEMO_EMAIL));
    const password = readPassword(passwordFile);
    if (!account || !password || !(await verifyPassword(password, account.passwordHash))) {
      return { bookingLink: existing.bookingLink, email: DEMO_EMAIL, password: null };
    }
    // Installations seeded before the rule: the printed password still works, so it becomes temporary too.
    if (!account.mustChangePassword) await db.update(accounts).set({ mustChangePassword: true }).where(eq(accounts.id, account.id));
    return { bookingLink: existing.bookingLink, email: DEMO_EMAIL, password };
  }
  const password = `demo-${randomBytes(6).toString("base64url")}`;
  await db.transaction(async (tx) => {
    const [business] = await tx
      .insert(businesses)
      .values({
        name: "Sakina Demo Salon",
        bookingLink: DEMO_BOOKING_LINK,
        industry: "beauty",
        ownerName: "Demo Owner",
        email: DEMO_EMAIL,
        phone: "+12125550100",
        address: "350 Fifth Avenue, New York, NY",
        description: "A demo business: book any free time to see Sakina's booking page and confirmation flow.",
        timeZone: "America/New_York",
        status: "active",
        planStatus: "starter",
        minimumNoticeMinutes: 60,
        verifiedAt: new Date(),
        activatedAt: new Date(),
        starterEndsAt: new Date(Date.now() + 7 * 86_400_000),
      })
      .returning();
    await tx.insert(businessServices).values([
      {
        businessId: business!.id,
        name: "Haircut",
        description: "Wash, cut and style.",
        priceCents: 3500,
        currency: "USD",
        durationMinutes: 30,
      },
      {
        businessId: business!.id,
        name: "Colour",
        description: "Full colour with a consultation.",
        priceCents: 12000,
        currency: "USD",
        durationMinutes: 90,
      },
      {
        businessId: business!.id,
        name: "Consultation",
        description: "A free 15-minute chat about what you'd like.",
        priceCents: 0,
        currency: "USD",
        durationMinutes: 15,
      },
    ]);
    await tx.insert(accounts).values({
      businessId: business!.id,
      role: "owner",
      name: "Demo Owner",
      email: DEMO_EMAIL,
      passwordHash: await hashPassword(password),
      mustChangePassword: true,
    });
    await replaceWeeklySchedule(tx as unknown as Db, business!.id, {
      0: [],
      1: [
        { startMinute: 540, endMinute: 720 },
        { startMinute: 780, endMinute: 1020 },
      ],
      2: [
        { startMinute: 540, endMinute: 720 },
        { startMinute: 780, endMinute: 1020 },
      ],
      3: [
        { startMinute: 540, endMinute: 720 },
        { startMinute: 780, endMinute: 1020 },
      ],
      4: [
        { startMinute: 540, endMinute: 720 },
        { startMinute: 780, endMinute: 1020 },
      ],
      5: [
        { startMinute: 540, endMinute: 720 },
        { startMinute: 780, endMinute: 1020 },
      ],
      6: [{ startMinute: 600, endMinute: 840 }],
    });
  });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(passwordFile, password, { mode: 0o600 });
  return { bookingLink: DEMO_BOOKING_LINK, email: DEMO_EMAIL, password };
}

function readPassword(file: string) {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return null;
  }
}
