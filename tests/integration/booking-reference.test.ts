import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { and, eq, sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatBookingReference, newBookingReference, parseBookingReference, REFERENCE_ALPHABET } from "#models/booking-reference";
import { addService } from "#models/business-services";
import { createBooking, type NewBooking } from "#models/bookings";
import { registerBusiness, type Business } from "#models/businesses";
import type { Call } from "#models/calls";
import type { Db } from "#models/db";
import { pgErrorCode, UNIQUE_VIOLATION } from "#models/errors";
import * as schema from "#models/schema";
import { accounts, bookings, businesses } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { customerServiceTools, LOOKUP_BOOKING, NO_MATCHING_BOOKING, type AgentSession } from "~/features/agent/tools.server";
import { migrationsFolder } from "~/platform/db.server";
import { type FakeSmtp, type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { bookThroughPage } from "../support/book-through-page";
import { createIsolatedDatabase } from "../support/database";
import { httpClient } from "../support/http-client";
import { parseEml } from "../support/outbox";
import { waitFor } from "../support/wait";

// A booking's reference, the six characters a caller can say: unique per business under many
// simultaneous bookings, given to existing bookings by the migration, shown where the customer and
// the owner read their booking, and the key (with the caller's phone number) of the agents' look-up.
let app: InProcessApp;
let close: () => Promise<void>;
let smtp: FakeSmtp;
let demo: Business;
let other: Business;
let haircutId: number;
let otherServiceId: number;

const SHAPE = new RegExp(`^[${REFERENCE_ALPHABET}]{6}$`);

beforeAll(async () => {
  ({ app, smtp, close } = await startAppWithFakes({ smtp: true, env: { TRUST_PROXY: "1" } }));
  const db = app.services.db;
  [demo] = (await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"))) as [Business];
  const registered = await registerBusiness(db, {
    name: "Reference Studio",
    ownerName: "Other Owner",
    email: "reference-studio@example.com",
    phone: "+12125550100",
    industry: "beauty",
  });
  other = "created" in registered ? registered.created : registered.existing;
  otherServiceId = (
    await addService(db, other.id, { name: "Massage", description: null, priceCents: 5000, currency: "USD", durationMinutes: 60 })
  ).id;
  const services = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
  haircutId = services.find((s) => s.name === "Haircut")!.id;
});

afterAll(() => close?.());

/** The n-th booking of a series far beyond the booking window: 30 minutes each, none overlapping. */
function farBooking(
  business: Business,
  serviceId: number,
  n: number,
  series: number,
  phone = `+1718555${String(n % 10_000).padStart(4, "0")}`,
) {
  const start = Date.UTC(2031 + series, 0, 1) + n * 30 * 60_000;
  return {
    businessId: business.id,
    serviceId,
    startsAt: new Date(start),
    endsAt: new Date(start + 30 * 60_000),
    customerName: `Caller ${n}`,
    customerPhone: phone,
    customerEmail: null,
    notes: null,
    language: "en",
    idempotencyKey: null,
  } satisfies NewBooking;
}

describe("uniqueness per business", () => {
  it("gives 1,000 simultaneous bookings of one business 1,000 different references of the alphabet", async () => {
    const results = await Promise.all(
      Array.from({ length: 1_000 }, (_, n) => createBooking(app.services.db, farBooking(demo, haircutId, n, 0))),
    );
    const references = results.map((r) => (r.kind === "created" ? r.booking.reference : `not created: ${r.kind}`));
    expect(references.filter((r) => !SHAPE.test(r))).toEqual([]);
    expect(new Set(references).size).toBe(1_000);
    // No look-alikes: 0, O, 1, I, L never appear.
    expect(references.join("")).not.toMatch(/[01OIL]/);
  });

  it("draws again when the reference is taken, inside the booking, however many book at once", async () => {
    // A drawer whose every other draw is one of three references: all but three of 200 simultaneous
    // bookings clash with one made a moment before, and each must draw again rather than fail.
    const pool = ["AAAAAA", "BBBBBB", "CCCCCC"];
    let drawn = 0;
    const clashing = () => {
      drawn += 1;
      return drawn % 2 === 1 ? pool[(drawn >> 1) % pool.length]! : newBookingReference();
    };
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, n) =>
        createBooking(app.services.db, { ...farBooking(demo, haircutId, n, 1), newReference: clashing }),
      ),
    );
    expect(results.every((r) => r.kind === "created")).toBe(true);
    const references = results.map((r) => (r.kind === "created" ? r.booking.reference : ""));
    expect(new Set(references).size).toBe(200);
    for (const taken of pool) expect(references.filter((r) => r === taken)).toHaveLength(1);
    // Another business may have the same reference: unique per business, not across them.
    const elsewhere = await createBooking(app.services.db, { ...farBooking(other, otherServiceId, 0, 1), newReference: () => "AAAAAA" });
    expect(elsewhere.kind === "created" && elsewhere.booking.reference).toBe("AAAAAA");
  });

  it("is kept by the database: a second row with a business's reference is refused", async () => {
    const [row] = await app.services.db.select().from(bookings).where(eq(bookings.businessId, demo.id)).limit(1);
    const refused = await app.services.db
      .insert(bookings)
      .values({ ...farBooking(demo, haircutId, 5_000, 2), reference: row!.reference, manageTokenHash: "reference-test-duplicate" })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(pgErrorCode(refused)).toBe(UNIQUE_VIOLATION);
  });
});

describe("the migration", () => {
  it("gives every existing booking a reference of its own, then requires one", async () => {
    // The migrations before this one, on a database of their own, with bookings made under them.
    const before = await mkdtemp(path.join(os.tmpdir(), "sakina-migrations-"));
    const journal = JSON.parse(await readFile(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as {
      entries: { tag: string }[];
    };
    const index = journal.entries.findIndex((e) => e.tag.endsWith("_booking_reference"));
    await mkdir(path.join(before, "meta"));
    await writeFile(path.join(before, "meta", "_journal.json"), JSON.stringify({ ...journal, entries: journal.entries.slice(0, index) }));
    for (const file of (await readdir(migrationsFolder)).filter((f) => f.endsWith(".sql"))) {
      if (journal.entries.slice(0, index).some((e) => `${e.tag}.sql` === file))
        await copyFile(path.join(migrationsFolder, file), path.join(before, file));
    }
    const isolated = await createIsolatedDatabase();
    let db: Db;
    let migrate: (folder: string) => Promise<void>;
    let close: () => Promise<void>;
    if (isolated.databaseUrl) {
      const pool = new pg.Pool({ connectionString: isolated.databaseUrl, max: 2 });
      pool.on("connect", (client) => client.on("error", () => {}));
      pool.on("error", () => {});
      const pgDb = drizzlePg(pool, { schema });
      db = pgDb as unknown as Db;
      migrate = (folder) => migratePg(pgDb, { migrationsFolder: folder });
      close = async () => {
        await pool.end();
        await isolated.drop();
      };
    } else {
      const client = await PGlite.create("memory://", { extensions: { btree_gist } });
      const liteDb = drizzlePglite(client, { schema });
      db = liteDb as unknown as Db;
      migrate = (folder) => migratePglite(liteDb, { migrationsFolder: folder });
      close = () => client.close();
    }
    try {
      await migrate(before);
      // Rows written as that schema had them (the models follow today's schema, with later columns).
      const made = [];
      for (const name of ["One", "Two"]) {
        const [business] = (
          (await db.execute(sql`
            INSERT INTO businesses (name, booking_link, industry, owner_name, email, phone)
            VALUES (${`${name} Place`}, ${`${name.toLowerCase()}-place`}, 'beauty', ${name}, ${`${name.toLowerCase()}@example.com`}, '+12125550100')
            RETURNING id`)) as unknown as { rows: { id: number }[] }
        ).rows;
        const [service] = (
          (await db.execute(sql`
            INSERT INTO business_services (business_id, name, price_cents, currency, duration_minutes)
            VALUES (${business!.id}, 'Cut', 0, 'USD', 30)
            RETURNING id`)) as unknown as { rows: { id: number }[] }
        ).rows;
        made.push({ business: business!, service: service! });
      }
      for (const { business, service } of made) {
        await db.execute(sql`
          INSERT INTO bookings (business_id, service_id, starts_at, ends_at, customer_name, customer_phone, manage_token_hash)
          SELECT ${business.id}::int, ${service.id}::int, timestamptz '2030-01-01' + n * interval '1 hour', timestamptz '2030-01-01' + n * interval '1 hour' + interval '30 minutes',
                 'Customer ' || n, '+12125550100', ${`token-${business.id}-`}::text || n
          FROM generate_series(1, 300) AS n`);
      }
      await migrate(migrationsFolder);
      const rows = await db.select({ businessId: bookings.businessId, reference: bookings.reference }).from(bookings);
      expect(rows).toHaveLength(600);
      expect(rows.filter((r) => !SHAPE.test(r.reference))).toEqual([]);
      for (const { business } of made) {
        const own = rows.filter((r) => r.businessId === business.id).map((r) => r.reference);
        expect(new Set(own).size).toBe(300);
      }
      const column = (await db.execute(
        sql`select is_nullable from information_schema.columns where table_name = 'bookings' and column_name = 'reference'`,
      )) as unknown as { rows: { is_nullable: string }[] };
      expect(column.rows[0]!.is_nullable).toBe("NO");
    } finally {
      await close();
      await rm(before, { recursive: true, force: true });
    }
  });
});

describe("where the customer and the owner read it", () => {
  it("is on the done page, in the customer's e-mail and on the owner's booking card, grouped as it is read out", async () => {
    const client = httpClient(app.url, { forwardedFor: "198.51.100.31" });
    const email = "reference.reader@example.com";
    const { doneHtml } = await bookThroughPage(client, "demo-salon", { serviceName: "Haircut", phone: "+12125550131", email });
    const shown = /data-booking-reference="true">([^<]+)</.exec(doneHtml)?.[1];
    expect(shown).toMatch(/^[A-Z2-9]{3}-[A-Z2-9]{3}$/);
    expect(doneHtml).toContain("Booking reference");
    const [row] = await app.services.db
      .select()
      .from(bookings)
      .where(and(eq(bookings.customerPhone, "+12125550131"), eq(bookings.businessId, demo.id)));
    expect(formatBookingReference(row!.reference)).toBe(shown);

    const mail = await waitFor(() => smtp.received.find((m) => m.to.includes(email)), { what: "the customer's booking e-mail" });
    const parsed = parseEml(mail.raw);
    expect(parsed.text).toContain(`Booking reference: ${shown}`);

    const passwordHash = await hashPassword("reference owner password");
    await app.services.db.insert(accounts).values({
      businessId: demo.id,
      name: "Reference Owner",
      email: "reference-owner@example.com",
      passwordHash,
      mustChangePassword: false,
    });
    const owner = httpClient(app.url, { forwardedFor: "198.51.100.32" });
    expect(
      (await owner.postJson("/api/auth/login", { email: "reference-owner@example.com", password: "reference owner password" })).status,
    ).toBe(200);
    const card = await (await owner.get(`/dashboard/bookings/${row!.id}`)).text();
    expect(card).toContain(`data-booking-reference="true">${shown}<`);
    const list = await (await owner.get("/dashboard")).text();
    expect(list).toContain(`data-booking-reference="true">${shown}<`);
  });

  it("keeps its left-to-right order on the Arabic pages and in the Arabic e-mail", async () => {
    const client = httpClient(app.url, { forwardedFor: "198.51.100.33" });
    const email = "reference.arabic@example.com";
    const { doneHtml } = await bookThroughPage(client, "demo-salon", { serviceName: "Haircut", phone: "+12125550133", email, lng: "ar" });
    const shown = /<span dir="ltr"[^>]*data-booking-reference="true">([A-Z2-9]{3}-[A-Z2-9]{3})</.exec(doneHtml)?.[1];
    expect(shown).toBeDefined();
    expect(doneHtml).toContain("الرقم المرجعي للحجز");
    const mail = await waitFor(() => smtp.received.find((m) => m.to.includes(email)), { what: "the customer's Arabic booking e-mail" });
    expect(parseEml(mail.raw).text).toContain(`الرقم المرجعي للحجز: ${shown}`);
  });
});

describe("the agents' look-up by reference and phone number", () => {
  let visitor = 0;
  const session = (overrides: Partial<AgentSession> = {}): AgentSession => {
    visitor += 1;
    return { phone: `+1646555${String(1000 + visitor)}`, sessionKey: `reference-${visitor}`, channel: "text", ...overrides };
  };
  const lookup = (s: AgentSession, args: Record<string, unknown>) =>
    customerServiceTools(app.services, s)
      .find((t) => t.name === LOOKUP_BOOKING)!
      .run(args);

  async function aBooking(business: Business, serviceId: number, n: number, phone: string) {
    const result = await createBooking(app.services.db, farBooking(business, serviceId, n, 3, phone));
    if (result.kind !== "created") throw new Error(result.kind);
    return result.booking;
  }

  it("finds the booking with its reference said any way and the phone it was made with; any mismatch gets one answer", async () => {
    const booking = await aBooking(demo, haircutId, 1, "+12125550161");
    const reference = formatBookingReference(booking.reference);
    const spoken = `${reference.slice(0, 3).toLowerCase()} ${reference.slice(4)}`;
    const found = await lookup(session(), { reference: spoken, phone: "(212) 555-0161" });
    expect(found).toMatch(/^Booking found at "Sakina Demo Salon": "Haircut" on .*, for "Caller 1"\./);
    expect(found).toContain(`Booking reference: ${reference}.`);
    // The number the caller is on is the default.
    expect(await lookup(session({ phone: "+12125550161" }), { reference: booking.reference })).toMatch(/^Booking found/);

    const wrongPhone = await lookup(session(), { reference, phone: "+12125550199" });
    const otherReference = [...REFERENCE_ALPHABET].find((c) => c !== booking.reference[5])!;
    const wrongReference = await lookup(session(), {
      reference: `${booking.reference.slice(0, 5)}${otherReference}`,
      phone: "+12125550161",
    });
    const notAReference = await lookup(session(), { reference: "K0O-1IL", phone: "+12125550161" });
    expect(wrongPhone).toBe(NO_MATCHING_BOOKING);
    expect(wrongReference).toBe(NO_MATCHING_BOOKING);
    expect(notAReference).toBe(NO_MATCHING_BOOKING);
    expect(wrongPhone).not.toMatch(/Haircut|Caller|Demo Salon|2031|2034/);
  });

  it("keeps the confirmation agent to its own business: another business's booking gets the same answer", async () => {
    const mine = await aBooking(other, otherServiceId, 2, "+12125550162");
    const theirs = await aBooking(demo, haircutId, 3, "+12125550162");
    const call = {
      id: 900_001,
      purpose: "booking_confirmation",
      businessId: other.id,
      bookingId: mine.id,
      language: "en",
      voice: "alloy",
      toNumber: "+12125550162",
    } as unknown as Call;
    const agent = await app.services.callPurposes[call.purpose].agent(app.services, call);
    const tool = agent.tools.find((t) => t.name === LOOKUP_BOOKING)!;
    expect(agent.instructions).toContain(formatBookingReference(mine.reference));
    expect(await tool.run({ reference: formatBookingReference(mine.reference) })).toMatch(
      /^Booking found at "Reference Studio": "Massage"/,
    );
    expect(await tool.run({ reference: formatBookingReference(theirs.reference) })).toBe(NO_MATCHING_BOOKING);
    expect(await tool.run({ reference: formatBookingReference(mine.reference), phone: "+12125550199" })).toBe(NO_MATCHING_BOOKING);
  });

  it("stops guessing: after ten look-ups of one reference in an hour, even the right phone number is refused, and other callers too", async () => {
    const booking = await aBooking(demo, haircutId, 4, "+12125550164");
    for (let guess = 0; guess < 10; guess++) {
      expect(await lookup(session(), { reference: booking.reference, phone: `+1212555${String(7000 + guess)}` })).toBe(NO_MATCHING_BOOKING);
    }
    const refused = await lookup(session(), { reference: booking.reference, phone: "+12125550164" });
    expect(refused).toMatch(/^Too many booking look-ups just now/);
    expect(refused).not.toMatch(/Haircut|Caller/);
    // One caller trying many references is stopped the same way.
    const guesser = session();
    for (let guess = 0; guess < 10; guess++) {
      const reference = `K7MQ4${REFERENCE_ALPHABET[guess]}`;
      expect(await lookup(guesser, { reference, phone: `+1212555${String(8000 + guess)}` })).toBe(NO_MATCHING_BOOKING);
    }
    expect(await lookup(guesser, { reference: "ZZZ-ZZZ", phone: "+12125558999" })).toMatch(/^Too many booking look-ups just now/);
  });

  it("counts one number as one, however it is written: ten look-ups in three forms, and the eleventh is refused", async () => {
    const booking = await aBooking(demo, haircutId, 5, "+12125550165");
    const forms = ["+1 212 555 0165", "(212) 555-0165", "001 212 555 0165"];
    for (let guess = 0; guess < 10; guess++) {
      const reference = `W${REFERENCE_ALPHABET[guess]}K-${REFERENCE_ALPHABET[guess + 1]}7P`;
      expect(await lookup(session(), { reference, phone: forms[guess % 3] })).toBe(NO_MATCHING_BOOKING);
    }
    for (const phone of forms) {
      const refused = await lookup(session(), { reference: formatBookingReference(booking.reference), phone });
      expect(refused).toMatch(/^Too many booking look-ups just now/);
    }
    // Another number is its own counter.
    expect(await lookup(session(), { reference: "WWK-W7P", phone: "(212) 555-0166" })).toBe(NO_MATCHING_BOOKING);
  });

  it("reads what callers type: Arabic digits, dashes and spaces, any case", () => {
    expect(parseBookingReference("k7m-q4p")).toBe("K7MQ4P");
    expect(parseBookingReference(" K7M Q4P ")).toBe("K7MQ4P");
    expect(parseBookingReference("k٧m–q٤p")).toBe("K7MQ4P");
    expect(parseBookingReference("K7MQ4")).toBeNull();
    expect(parseBookingReference("K0MQ4P")).toBeNull();
  });
});
