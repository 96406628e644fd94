// Products and prices, and what a price charges for a quantity.
import { invalid, noSuch } from "./validation";
import { newId, now, mergeMetadata, checkCurrency } from "./objects";
import type { Obj } from "./types";
import { store, type FakeStripeState } from "./state";

export function createProduct(state: FakeStripeState, p: Obj): Obj {
  if (p.id && state.products.has(p.id)) throw invalid(`Product already exists.`, { param: "id", code: "resource_already_exists" });
  return store(state, state.products, {
    id: p.id ?? newId("prod"),
    object: "product",
    active: p.active ?? true,
    created: now(),
    default_price: null,
    description: p.description ?? null,
    images: p.images ?? [],
    livemode: false,
    marketing_features: [],
    metadata: mergeMetadata({}, p.metadata),
    name: p.name,
    package_dimensions: null,
    shippable: null,
    statement_descriptor: p.statement_descriptor ?? null,
    tax_code: p.tax_code ?? null,
    tax_details: null,
    type: "service",
    unit_label: p.unit_label ?? null,
    updated: now(),
    url: null,
  });
}

export function createPrice(state: FakeStripeState, p: Obj, paramPrefix = "", opts: { active?: boolean } = {}): Obj {
  const name = (key: string) => (paramPrefix ? `${paramPrefix}[${key}]` : key);
  const currency = checkCurrency(p.currency, name("currency"));
  let productId: string;
  if (typeof p.product === "string") {
    if (!state.products.has(p.product)) throw noSuch("product", p.product, name("product"));
    productId = p.product;
  } else if (p.product_data) {
    productId = createProduct(state, { ...p.product_data, active: opts.active ?? true }).id;
  } else {
    throw invalid("You must specify either `product` or `product_data` when creating a price.", {
      param: name("product"),
      code: "parameter_missing",
    });
  }
  const scheme = p.billing_scheme ?? "per_unit";
  let tiers: Obj[] | undefined;
  if (scheme === "tiered") {
    if (!p.tiers_mode) throw invalid("Missing required param: tiers_mode.", { param: name("tiers_mode"), code: "parameter_missing" });
    const given = (p.tiers as Obj[] | undefined) ?? [];
    if (given.length === 0) throw invalid("Missing required param: tiers.", { param: name("tiers"), code: "parameter_missing" });
    if (given[given.length - 1]!.up_to !== "inf") throw invalid("The last tier must have `up_to` set to `inf`.", { param: name("tiers") });
    tiers = given.map((t) => ({
      flat_amount: t.flat_amount ?? null,
      flat_amount_decimal: t.flat_amount !== undefined ? String(t.flat_amount) : (t.flat_amount_decimal ?? null),
      unit_amount: t.unit_amount ?? null,
      unit_amount_decimal: t.unit_amount !== undefined ? String(t.unit_amount) : (t.unit_amount_decimal ?? null),
      up_to: t.up_to === "inf" ? null : t.up_to,
    }));
  } else if (p.unit_amount === undefined && p.unit_amount_decimal === undefined && p.custom_unit_amount === undefined) {
    throw invalid("Missing required param: unit_amount.", { param: name("unit_amount"), code: "parameter_missing" });
  } else if (p.tiers !== undefined || p.tiers_mode !== undefined) {
    throw invalid("You may only specify `tiers` with `billing_scheme=tiered`.", { param: name("tiers") });
  }
  let recurring: Obj | null = null;
  if (p.recurring) {
    const r = p.recurring as Obj;
    const usage = r.usage_type ?? "licensed";
    if (usage === "metered") {
      if (!r.meter)
        throw invalid("Prices with `usage_type=metered` must be backed by a meter. Pass `recurring[meter]`.", {
          param: name("recurring[meter]"),
          code: "parameter_missing",
        });
      if (!state.meters.has(r.meter)) throw noSuch("billing.meter", r.meter, name("recurring[meter]"));
    } else if (r.meter) {
      throw invalid("`recurring[meter]` can only be set when `recurring[usage_type]` is `metered`.", { param: name("recurring[meter]") });
    }
    recurring = {
      interval: r.interval,
      interval_count: r.interval_count ?? 1,
      meter: r.meter ?? null,
      trial_period_days: r.trial_period_days ?? null,
      usage_type: usage,
    };
  }
  if (p.lookup_key) {
    const holder = [...state.prices.values()].find((price) => price.lookup_key === p.lookup_key);
    if (holder) {
      if (!p.transfer_lookup_key) throw invalid(`A price (\`${holder.id}\`) already uses that lookup key.`, { param: name("lookup_key") });
      holder.lookup_key = null;
    }
  }
  const unitAmount = p.unit_amount ?? (p.unit_amount_decimal !== undefined ? Math.round(Number(p.unit_amount_decimal)) : null);
  const price = store(state, state.prices, {
    id: newId("price"),
    object: "price",
    active: opts.active ?? p.active ?? true,
    billing_scheme: scheme,
    created: now(),
    currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: p.lookup_key ?? null,
    metadata: mergeMetadata({}, p.metadata),
    nickname: p.nickname ?? null,
    product: productId,
    recurring,
    tax_behavior: p.tax_behavior ?? "unspecified",
    ...(tiers ? { tiers } : {}),
    tiers_mode: scheme === "tiered" ? p.tiers_mode : null,
    transform_quantity: null,
    type: recurring ? "recurring" : "one_time",
    unit_amount: scheme === "tiered" ? null : unitAmount,
    unit_amount_decimal: scheme === "tiered" ? null : String(p.unit_amount_decimal ?? unitAmount),
  });
  return price;
}

export function priceAmount(price: Obj, quantity: number): number {
  if (price.recurring?.usage_type === "metered") return 0;
  if (price.billing_scheme !== "tiered") return Math.round(Number(price.unit_amount_decimal ?? price.unit_amount ?? 0) * quantity);
  const tiers = price.tiers as Obj[];
  const tierAmount = (tier: Obj, units: number) =>
    Math.round(Number(tier.unit_amount_decimal ?? 0) * units + Number(tier.flat_amount_decimal ?? 0));
  if (price.tiers_mode === "volume") {
    const tier = tiers.find((t) => t.up_to === null || quantity <= t.up_to) ?? tiers[tiers.length - 1]!;
    return quantity === 0 ? 0 : tierAmount(tier, quantity);
  }
  let total = 0;
  let floor = 0;
  for (const tier of tiers) {
    const cap = tier.up_to === null ? Infinity : tier.up_to;
    const units = Math.max(Math.min(quantity, cap) - floor, 0);
    if (units > 0) total += tierAmount(tier, units);
    floor = cap;
    if (quantity <= cap) break;
  }
  return total;
}

export function priceParam(state: FakeStripeState, id: string, param: string): Obj {
  const price = state.prices.get(id);
  if (!price) throw noSuch("price", id, param);
  return price;
}
