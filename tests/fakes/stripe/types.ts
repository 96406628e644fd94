// Stripe objects are loosely typed on purpose: tests read them like JSON.

export type Obj = Record<string, any>;
