/** What the empathy call costs and the voices a caller chooses from: shown in the browser, so no validation code here. */
export const EMPATHY_PRICE = "$5.00";
export const voiceGenders = ["female", "male"] as const;
