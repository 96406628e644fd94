// Cards

export interface CardBehavior {
  brand: string;
  funding: string;
  decline?: { code: string; decline_code?: string; message: string };
  /** Saving the card (a SetupIntent, attaching it) succeeds; only charges are declined. */
  setupSucceeds?: boolean;
}

export const DECLINED = { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." };
export const TEST_CARDS: Record<string, CardBehavior> = {
  "4242424242424242": { brand: "visa", funding: "credit" },
  "4000056655665556": { brand: "visa", funding: "debit" },
  "5555555555554444": { brand: "mastercard", funding: "credit" },
  "2223003122003222": { brand: "mastercard", funding: "credit" },
  "5200828282828210": { brand: "mastercard", funding: "debit" },
  "378282246310005": { brand: "amex", funding: "credit" },
  "4000000000000002": { brand: "visa", funding: "credit", decline: DECLINED },
  "4000000000009995": {
    brand: "visa",
    funding: "credit",
    decline: { code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." },
  },
  "4000000000000341": { brand: "visa", funding: "credit", decline: DECLINED, setupSucceeds: true },
  "4000000000009987": {
    brand: "visa",
    funding: "credit",
    decline: { code: "card_declined", decline_code: "lost_card", message: "Your card was declined." },
  },
  "4000000000009979": {
    brand: "visa",
    funding: "credit",
    decline: { code: "card_declined", decline_code: "stolen_card", message: "Your card was declined." },
  },
  "4000000000000069": {
    brand: "visa",
    funding: "credit",
    decline: { code: "expired_card", decline_code: "expired_card", message: "Your card has expired." },
  },
  "4000000000000127": {
    brand: "visa",
    funding: "credit",
    decline: { code: "incorrect_cvc", decline_code: "incorrect_cvc", message: "Your card's security code is incorrect." },
  },
  "4000000000000119": {
    brand: "visa",
    funding: "credit",
    decline: {
      code: "processing_error",
      decline_code: "processing_error",
      message: "An error occurred while processing your card. Try again in a little bit.",
    },
  },
};
export const TEST_PAYMENT_METHODS: Record<string, string> = {
  pm_card_visa: "4242424242424242",
  pm_card_visa_debit: "4000056655665556",
  pm_card_mastercard: "5555555555554444",
  pm_card_amex: "378282246310005",
  pm_card_chargeDeclined: "4000000000000002",
  pm_card_chargeCustomerFail: "4000000000000341",
  pm_card_visa_chargeDeclined: "4000000000000002",
  pm_card_chargeDeclinedInsufficientFunds: "4000000000009995",
  pm_card_visa_chargeDeclinedInsufficientFunds: "4000000000009995",
  pm_card_chargeDeclinedLostCard: "4000000000009987",
  pm_card_visa_chargeDeclinedLostCard: "4000000000009987",
  pm_card_chargeDeclinedStolenCard: "4000000000009979",
  pm_card_visa_chargeDeclinedStolenCard: "4000000000009979",
  pm_card_chargeDeclinedExpiredCard: "4000000000000069",
  pm_card_visa_chargeDeclinedExpiredCard: "4000000000000069",
  pm_card_chargeDeclinedIncorrectCvc: "4000000000000127",
  pm_card_visa_chargeDeclinedIncorrectCvc: "4000000000000127",
  pm_card_chargeDeclinedProcessingError: "4000000000000119",
  pm_card_visa_chargeDeclinedProcessingError: "4000000000000119",
};

export function luhnValid(number: string) {
  let sum = 0;
  let double = false;
  for (let i = number.length - 1; i >= 0; i--) {
    let d = number.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return number.length >= 12 && sum % 10 === 0;
}

/** What a card number does in test mode: a behaviour, or the card_error it is refused with. */
export function cardBehavior(number: string): CardBehavior {
  const known = TEST_CARDS[number];
  if (known) return known;
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
    return { brand: "unknown", funding: "unknown", decline: { code: "incorrect_number", message: "Your card number is incorrect." } };
  }
  return {
    brand: number.startsWith("4") ? "visa" : "unknown",
    funding: "credit",
    decline: {
      code: "card_declined",
      decline_code: "test_mode_live_card",
      message:
        "Your card was declined. Your request was in test mode, but used a non test (live) card. For a list of valid test cards, visit: https://docs.stripe.com/testing.",
    },
  };
}
