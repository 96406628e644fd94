import { expect } from "vitest";
import { addService } from "#models/business-services";
import { replaceWeeklySchedule, type WeeklySchedule } from "#models/opening-hours";
import { accounts, businessNumbers, businesses, calls, ownerMessages } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { httpClient } from "./http-client";
import type { AppServices } from "~/platform/services.server";

/**
 * A fixed-offset zone where it is now about `hour` o'clock, and its offset from UTC in hours. At
 * night there (03:00) a booking's confirmation call waits for calling hours (08:00-21:00), so a
 * phone booking in a test places no second call meanwhile.
 */
export function zoneAt(hour: number) {
  let offset = (((hour - new Date().getUTCHours()) % 24) + 24) % 24;
  if (offset > 14) offset -= 24;
  return { name: offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`, offset };
}

const ALL_DAY: WeeklySchedule = { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [] };

let seq = 0;

/**
 * A business with a service and its own connected number (a business_numbers row written as the
 * owner's settings would: the settings page is another part of issue 48). `open`: open all day
 * every day (else never open); `plan`: the monthly plan (default) or a starter.
 */
export async function businessWithNumber(
  services: Pick<AppServices, "db">,
  options: {
    number: string;
    open?: boolean;
    transferNumber?: string | null;
    mode?: "off" | "always" | "outside_hours";
    plan?: "active" | "starter";
    maxConcurrentCalls?: number;
    maxCallsPerCallerPerDay?: number;
    language?: string;
  },
) {
  seq += 1;
  const zone = zoneAt(3);
  const now = Date.now();
  const [business] = await services.db
    .insert(businesses)
    .values({
      name: `Line Salon ${seq}`,
      bookingLink: `line-salon-${seq}-${now}`,
      ownerName: "Owner",
      email: `line-salon-${seq}-${now}@example.com`,
      phone: "+12125550100",
      address: "12 Harbour Street",
      status: "active",
      timeZone: zone.name,
      defaultLanguage: options.language ?? "en",
      confirmationVoice: "coral",
      activatedAt: new Date(now - 2 * 86_400_000),
      ...(options.plan === "starter"
        ? { planStatus: "starter" as const, starterEndsAt: new Date(now + 5 * 86_400_000) }
        : { planStatus: "active" as const, planPeriodStart: new Date(now - 86_400_000), planPeriodEnd: new Date(now + 29 * 86_400_000) }),
    })
    .returning();
  const service = await addService(services.db, business!.id, {
    name: "Beard trim",
    description: "",
    priceCents: 1500,
    currency: "USD",
    durationMinutes: 30,
  });
  const day = [{ startMinute: 0, endMinute: 1440 }];
  await replaceWeeklySchedule(
    services.db,
    business!.id,
    options.open === false ? ALL_DAY : { 0: day, 1: day, 2: day, 3: day, 4: day, 5: day, 6: day },
  );
  const [number] = await services.db
    .insert(businessNumbers)
    .values({
      businessId: business!.id,
      phoneNumber: options.number,
      providerSid: `PN${String(seq).padStart(32, "0")}`,
      receptionistMode: options.mode ?? "always",
      transferNumber: options.transferNumber ?? null,
      transferWithinHours: true,
      maxConcurrentCalls: options.maxConcurrentCalls ?? 2,
      maxCallsPerCallerPerDay: options.maxCallsPerCallerPerDay ?? 5,
    })
    .returning();
  return { business: business!, service, number: number!, zone };
}

/** The business's owner, signed in through the login API, as a browser would be. */
export async function signedInOwner(services: Pick<AppServices, "db">, url: string, businessId: number) {
  const email = `line-owner-${businessId}@example.com`;
  await services.db.insert(accounts).values({
    businessId,
    name: "Salon Owner",
    email,
    passwordHash: await hashPassword("line owner password"),
    mustChangePassword: false,
  });
  const client = httpClient(url);
  expect((await client.postJson("/api/auth/login", { email, password: "line owner password" })).status).toBe(200);
  return client;
}

/**
 * What the demo salon's owner finds after a day of the receptionist: a call to the number that
 * booked (with its summary), a message taken for them, a voicemail transcribed and one still being
 * transcribed. Returns the call's id (its own page).
 */
export async function seedReceptionistDay(services: Pick<AppServices, "db">, businessId: number) {
  const answeredAt = new Date(Date.now() - 2 * 3_600_000);
  const [call] = await services.db
    .insert(calls)
    .values({
      purpose: "receptionist",
      direction: "inbound",
      language: "en",
      voice: "coral",
      status: "completed",
      providerCallId: `CA${"a".repeat(32)}`,
      fromNumber: "+12125550187",
      toNumber: "+15005550020",
      businessId,
      outcome: "booked",
      summary: "Booked a haircut for Friday at 10:00; asked whether parking is free.",
      timeLimitSeconds: 480,
      startedAt: answeredAt,
      answeredAt,
      endedAt: new Date(answeredAt.getTime() + 94_000),
      durationSeconds: 94,
      delivered: true,
      createdAt: answeredAt,
    })
    .returning();
  await services.db.insert(ownerMessages).values([
    {
      businessId,
      callId: call!.id,
      kind: "message",
      fromNumber: "+447700900123",
      callerName: "Lina",
      body: "Please call me back about a group booking for six people next Saturday.",
      emailedAt: new Date(),
      createdAt: new Date(Date.now() - 3_600_000),
    },
    {
      businessId,
      kind: "voicemail",
      fromNumber: "+4915112345678",
      body: "Hallo, hier ist Jonas, ich komme zehn Minuten später.",
      recordingSid: `RE${"b".repeat(32)}`,
      providerCallId: `CA${"b".repeat(32)}`,
      emailedAt: new Date(),
      createdAt: new Date(Date.now() - 1_800_000),
    },
    {
      businessId,
      kind: "voicemail",
      fromNumber: "+966551234567",
      recordingSid: `RE${"c".repeat(32)}`,
      providerCallId: `CA${"c".repeat(32)}`,
    },
  ]);
  return call!.id;
}
