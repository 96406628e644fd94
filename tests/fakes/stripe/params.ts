import { type Spec, S, I, B, A, M, X, known } from "./validation";

// Parameter specs (top-level names from stripe 23.1.0's types for API version 2026-10-28.endive)

export const SETUP_FUTURE_USAGE = { enum: ["off_session", "on_session"] } as const;
export const INTERVAL = { enum: ["day", "month", "week", "year"] } as const;
export const PRODUCT_DATA: Spec = {
  obj: {
    active: B,
    id: S,
    metadata: M,
    name: S,
    statement_descriptor: S,
    tax_code: S,
    tax_details: A,
    unit_label: S,
    description: S,
    images: A,
  },
  req: ["name"],
};
export const PI_AUTOMATIC_PM: Spec = { obj: { enabled: B, allow_redirects: { enum: ["always", "never"] } }, req: ["enabled"] };

export const CUSTOMER_CREATE = known(
  "address balance business_name cash_balance description email expand individual_name invoice_prefix invoice_settings metadata name next_invoice_sequence payment_method phone preferred_locales shipping source tax tax_exempt tax_id_data test_clock validate",
  {
    description: S,
    email: S,
    name: S,
    phone: S,
    metadata: M,
    expand: X,
    payment_method: S,
    invoice_settings: { obj: { custom_fields: A, default_payment_method: S, footer: S, rendering_options: A } },
    tax_exempt: { enum: ["exempt", "none", "reverse"] },
  },
);
export const CUSTOMER_UPDATE = known(
  "address balance business_name cash_balance default_source description email expand individual_name invoice_prefix invoice_settings metadata name next_invoice_sequence phone preferred_locales shipping source tax tax_exempt validate",
  {
    description: S,
    email: S,
    name: S,
    phone: S,
    metadata: M,
    expand: X,
    invoice_settings: { obj: { custom_fields: A, default_payment_method: S, footer: S, rendering_options: A } },
    tax_exempt: { enum: ["exempt", "none", "reverse"] },
  },
);
export const PI_COMMON_SPECS: Record<string, Spec> = {
  amount: I,
  currency: S,
  customer: S,
  description: S,
  metadata: M,
  receipt_email: S,
  setup_future_usage: SETUP_FUTURE_USAGE,
  automatic_payment_methods: PI_AUTOMATIC_PM,
  allowed_payment_method_types: { arr: S },
  payment_method: S,
  confirm: B,
  expand: X,
  return_url: S,
  capture_method: { enum: ["automatic", "automatic_async", "manual"] },
  statement_descriptor: S,
  statement_descriptor_suffix: S,
};
export const PI_CREATE = known(
  "allowed_payment_method_types amount_details application_fee_amount automatic_payment_methods capture_method confirm confirmation_method confirmation_token customer customer_account description error_on_requires_action excluded_payment_method_types expand hooks mandate mandate_data metadata off_session on_behalf_of payment_details payment_method payment_method_configuration payment_method_data payment_method_options radar_options receipt_email return_url setup_future_usage shipping statement_descriptor statement_descriptor_suffix transfer_data transfer_group use_stripe_sdk",
  PI_COMMON_SPECS,
);
export const PI_UPDATE = known(
  "allowed_payment_method_types amount amount_details application_fee_amount capture_method currency customer customer_account description excluded_payment_method_types expand hooks metadata payment_details payment_method payment_method_configuration payment_method_data payment_method_options receipt_email setup_future_usage shipping statement_descriptor statement_descriptor_suffix transfer_data transfer_group",
  Object.fromEntries(
    Object.entries(PI_COMMON_SPECS).filter(([key]) => !["confirm", "automatic_payment_methods", "return_url"].includes(key)),
  ),
);
export const PI_CONFIRM = known(
  "allowed_payment_method_types amount_details amount_to_confirm capture_method confirmation_token error_on_requires_action excluded_payment_method_types expand hooks mandate mandate_data off_session payment_details payment_method payment_method_data payment_method_options radar_options receipt_email return_url setup_future_usage shipping use_stripe_sdk client_secret",
  {
    payment_method: S,
    return_url: S,
    receipt_email: S,
    setup_future_usage: SETUP_FUTURE_USAGE,
    expand: X,
    client_secret: S,
    allowed_payment_method_types: { arr: S },
  },
);
/** What Stripe.js adds on confirm with a publishable key. */
export const PI_CONFIRM_PUBLISHABLE = { ...PI_CONFIRM, key: S, expected_payment_method_type: S, _stripe_version: S } as Record<
  string,
  Spec
>;
export const PI_RETRIEVE = known("client_secret expand", { client_secret: S, expand: X });
export const PI_CANCEL = known("cancellation_reason expand", {
  cancellation_reason: { enum: ["abandoned", "duplicate", "fraudulent", "requested_by_customer"] },
  expand: X,
});
export const PI_CAPTURE = known(
  "amount_details amount_to_capture application_fee_amount expand final_capture hooks metadata payment_details statement_descriptor statement_descriptor_suffix transfer_data",
  {
    amount_to_capture: I,
    expand: X,
    metadata: M,
  },
);
export const REFUND_CREATE = known(
  "amount charge currency customer expand instructions_email metadata origin payment_intent reason refund_application_fee reverse_transfer",
  {
    amount: I,
    charge: S,
    payment_intent: S,
    metadata: M,
    expand: X,
    reason: { enum: ["duplicate", "fraudulent", "requested_by_customer"] },
  },
);
export const EXPAND_ONLY = known("expand", { expand: X });
export const LINE_ITEM: Spec = {
  obj: {
    adjustable_quantity: A,
    metadata: M,
    price: S,
    price_data: {
      obj: {
        currency: S,
        product: S,
        product_data: {
          obj: { description: S, images: A, metadata: M, name: S, tax_code: S, tax_details: A, unit_label: S },
          req: ["name"],
        },
        recurring: { obj: { interval: INTERVAL, interval_count: I }, req: ["interval"] },
        tax_behavior: { enum: ["exclusive", "inclusive", "unspecified"] },
        unit_amount: I,
        unit_amount_decimal: "decimal",
      },
      req: ["currency"],
    },
    quantity: I,
    tax_rates: A,
  },
};
export const CHECKOUT_CREATE = known(
  "adaptive_pricing after_expiration allow_promotion_codes allowed_payment_method_types automatic_tax billing_address_collection branding_settings cancel_url client_reference_id consent_collection currency custom_fields custom_text customer customer_account customer_creation customer_email customer_update discounts excluded_payment_method_types expand expires_at integration_identifier invoice_creation line_items locale managed_payments metadata mode name_collection optional_items origin_context payment_intent_data payment_method_collection payment_method_configuration payment_method_data payment_method_options permissions phone_number_collection redirect_on_completion return_url saved_payment_method_options setup_intent_data shipping_address_collection shipping_options submit_type subscription_data success_url tax_id_collection ui_mode wallet_options",
  {
    mode: { enum: ["payment", "setup", "subscription"] },
    customer: S,
    customer_email: S,
    customer_creation: { enum: ["always", "if_required"] },
    line_items: { arr: LINE_ITEM },
    payment_intent_data: {
      obj: known(
        "application_fee_amount capture_method description metadata on_behalf_of receipt_email setup_future_usage shipping statement_descriptor statement_descriptor_suffix transfer_data transfer_group",
        {
          description: S,
          metadata: M,
          receipt_email: S,
          setup_future_usage: SETUP_FUTURE_USAGE,
          capture_method: { enum: ["automatic", "automatic_async", "manual"] },
        },
      ),
    },
    subscription_data: {
      obj: known(
        "application_fee_percent billing_cycle_anchor billing_cycle_anchor_config billing_mode default_tax_rates description invoice_settings metadata on_behalf_of pending_invoice_item_interval proration_behavior transfer_data trial_end trial_period_days trial_settings",
        {
          description: S,
          metadata: M,
          trial_end: I,
          trial_period_days: I,
        },
      ),
    },
    setup_intent_data: { obj: { description: S, metadata: M, on_behalf_of: S } },
    metadata: M,
    success_url: S,
    cancel_url: S,
    return_url: S,
    client_reference_id: S,
    locale: S,
    currency: S,
    expand: X,
    expires_at: I,
    ui_mode: { enum: ["elements", "embedded_page", "form", "hosted_page"] },
    allowed_payment_method_types: { arr: S },
  },
);
export const LIST = known("ending_before expand limit starting_after", { expand: X, limit: I });
export const PRODUCT_CREATE = known(
  "name active default_price_data description expand id images marketing_features metadata package_dimensions shippable statement_descriptor tax_code tax_details type unit_label url",
  {
    name: S,
    active: B,
    description: S,
    expand: X,
    id: S,
    metadata: M,
    default_price_data: {
      obj: {
        currency: S,
        currency_options: A,
        custom_unit_amount: A,
        metadata: M,
        recurring: { obj: { interval: INTERVAL, interval_count: I }, req: ["interval"] },
        tax_behavior: A,
        unit_amount: I,
        unit_amount_decimal: "decimal",
      },
      req: ["currency"],
    },
  },
);
export const PRICE_CREATE = known(
  "currency active billing_scheme currency_options custom_unit_amount expand lookup_key metadata nickname product product_data recurring tax_behavior tiers tiers_mode transfer_lookup_key transform_quantity unit_amount unit_amount_decimal",
  {
    currency: S,
    active: B,
    billing_scheme: { enum: ["per_unit", "tiered"] },
    expand: X,
    lookup_key: S,
    metadata: M,
    nickname: S,
    product: S,
    product_data: PRODUCT_DATA,
    recurring: {
      obj: { interval: INTERVAL, interval_count: I, meter: S, trial_period_days: I, usage_type: { enum: ["licensed", "metered"] } },
      req: ["interval"],
    },
    tax_behavior: { enum: ["exclusive", "inclusive", "unspecified"] },
    tiers: {
      arr: {
        obj: { flat_amount: I, flat_amount_decimal: "decimal", unit_amount: I, unit_amount_decimal: "decimal", up_to: "int_or_inf" },
        req: ["up_to"],
      },
    },
    tiers_mode: { enum: ["graduated", "volume"] },
    transfer_lookup_key: B,
    unit_amount: I,
    unit_amount_decimal: "decimal",
  },
);
export const PRICE_LIST = known("active created currency expand lookup_keys product recurring type ending_before limit starting_after", {
  active: B,
  currency: S,
  expand: X,
  lookup_keys: { arr: S },
  product: S,
  type: { enum: ["one_time", "recurring"] },
  limit: I,
  recurring: { obj: { interval: INTERVAL, meter: S, usage_type: { enum: ["licensed", "metered"] } } },
});
export const METER_CREATE = known("default_aggregation display_name event_name customer_mapping event_time_window expand value_settings", {
  default_aggregation: { obj: { formula: { enum: ["count", "last", "sum"] } }, req: ["formula"] },
  display_name: S,
  event_name: S,
  customer_mapping: { obj: { event_payload_key: S, type: { enum: ["by_id"] } }, req: ["event_payload_key", "type"] },
  event_time_window: { enum: ["day", "hour"] },
  expand: X,
  value_settings: { obj: { event_payload_key: S }, req: ["event_payload_key"] },
});
export const METER_LIST = known("expand status ending_before limit starting_after", {
  expand: X,
  status: { enum: ["active", "inactive"] },
  limit: I,
});
export const METER_EVENT_CREATE = known("event_name payload expand identifier timestamp", {
  event_name: S,
  payload: A,
  expand: X,
  identifier: S,
  timestamp: I,
});
export const SUB_ITEM_CREATE: Spec = {
  obj: known("billing_thresholds current_trial discounts metadata plan price price_data quantity tax_rates", {
    metadata: M,
    price: S,
    plan: S,
    quantity: I,
    price_data: {
      obj: {
        currency: S,
        product: S,
        recurring: { obj: { interval: INTERVAL, interval_count: I }, req: ["interval"] },
        tax_behavior: A,
        unit_amount: I,
        unit_amount_decimal: "decimal",
      },
      req: ["currency", "product", "recurring"],
    },
  }),
};
export const SUB_ITEM_UPDATE: Spec = {
  obj: known("billing_thresholds clear_usage current_trial deleted discounts id metadata plan price price_data quantity tax_rates", {
    clear_usage: B,
    deleted: B,
    id: S,
    metadata: M,
    price: S,
    plan: S,
    quantity: I,
    price_data: {
      obj: {
        currency: S,
        product: S,
        recurring: { obj: { interval: INTERVAL, interval_count: I }, req: ["interval"] },
        tax_behavior: A,
        unit_amount: I,
        unit_amount_decimal: "decimal",
      },
      req: ["currency", "product", "recurring"],
    },
  }),
};
export const SUB_PAYMENT_SETTINGS: Spec = {
  obj: {
    payment_method_options: A,
    payment_method_types: { arr: S },
    save_default_payment_method: { enum: ["off", "on_subscription"] },
  },
};
export const PAYMENT_BEHAVIOR = {
  enum: ["allow_incomplete", "default_incomplete", "error_if_incomplete", "pending_if_incomplete"],
} as const;
export const PRORATION = { enum: ["always_invoice", "create_prorations", "none"] } as const;
export const SUB_CREATE = known(
  "add_invoice_items application_fee_percent automatic_tax backdate_start_date billing_cycle_anchor billing_cycle_anchor_config billing_mode billing_schedules billing_thresholds cancel_at cancel_at_period_end collection_method currency customer customer_account days_until_due default_payment_method default_source default_tax_rates description discounts expand invoice_settings items metadata off_session on_behalf_of payment_behavior payment_settings pending_invoice_item_interval proration_behavior transfer_data trial_end trial_from_plan trial_period_days trial_settings",
  {
    customer: S,
    items: { arr: SUB_ITEM_CREATE },
    trial_end: "ts_or_now",
    trial_period_days: I,
    default_payment_method: S,
    metadata: M,
    description: S,
    payment_behavior: PAYMENT_BEHAVIOR,
    expand: X,
    proration_behavior: PRORATION,
    off_session: B,
    cancel_at_period_end: B,
    cancel_at: I,
    collection_method: { enum: ["charge_automatically", "send_invoice"] },
    days_until_due: I,
    currency: S,
    payment_settings: SUB_PAYMENT_SETTINGS,
  },
);
export const SUB_UPDATE = known(
  "add_invoice_items application_fee_percent automatic_tax billing_cycle_anchor billing_schedules billing_thresholds cancel_at cancel_at_period_end cancellation_details collection_method days_until_due default_payment_method default_source default_tax_rates description discounts expand invoice_settings items metadata off_session on_behalf_of pause_collection payment_behavior payment_settings pending_invoice_item_interval proration_behavior proration_date transfer_data trial_end trial_from_plan trial_settings",
  {
    items: { arr: SUB_ITEM_UPDATE },
    trial_end: "ts_or_now",
    default_payment_method: S,
    metadata: M,
    description: S,
    payment_behavior: PAYMENT_BEHAVIOR,
    expand: X,
    proration_behavior: PRORATION,
    off_session: B,
    cancel_at_period_end: B,
    cancel_at: I,
    cancellation_details: { obj: { comment: S, feedback: S } },
    payment_settings: SUB_PAYMENT_SETTINGS,
  },
);
export const SUB_CANCEL = known("cancellation_details expand invoice_now prorate", {
  expand: X,
  invoice_now: B,
  prorate: B,
  cancellation_details: { obj: { comment: S, feedback: S } },
});
export const SI_CONFIRM = known(
  "allowed_payment_method_types confirmation_token expand mandate_data payment_method payment_method_data payment_method_options return_url use_stripe_sdk client_secret",
  {
    allowed_payment_method_types: { arr: S },
    client_secret: S,
    expand: X,
    payment_method: S,
    return_url: S,
    use_stripe_sdk: B,
  },
);
/** What Stripe.js adds on confirm with a publishable key. */
export const SI_CONFIRM_PUBLISHABLE = { ...SI_CONFIRM, key: S, expected_payment_method_type: S, _stripe_version: S } as Record<
  string,
  Spec
>;
export const SI_RETRIEVE = known("client_secret expand", { client_secret: S, expand: X });
export const INVOICE_PAY = known("expand forgive mandate off_session paid_out_of_band payment_method source", {
  expand: X,
  forgive: B,
  off_session: B,
  paid_out_of_band: B,
  payment_method: S,
  source: S,
});
export const PM_ATTACH = known("customer customer_account expand", { customer: S, expand: X });
