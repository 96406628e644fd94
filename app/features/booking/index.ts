/** What other features may use of booking, safe in the browser: the slot rules and the contact form's schema. */
export { contactSchema } from "./schemas";
export { computeSlots, slotsForLocalDate, windowLocalDates, type SlotRules, type WeeklySchedule } from "./slots";
