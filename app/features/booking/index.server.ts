/**
 * What other features (and the server wiring) may use of booking on the server: placing a booking
 * and reading availability, the confirmation call's promise, and the call purposes it registers.
 */
export {
  availabilityFor,
  bookableBusiness,
  bookableServices,
  queueConfirmationCall,
  normalizeCustomerPhone,
  placeBooking,
  slotsForDay,
} from "./booking.server";
export { confirmationCallPurpose, demoCallPurpose } from "./confirmation-call.server";
export { confirmationPromise, describeConfirmationPromise } from "./confirmation-promise.server";
export { manageTokenSealer } from "./manage-link.server";
export { changeBooking, customerZone, type ChangedBy } from "./booking-change.server";
export { bookingRemindersJob, REMINDER_CALL_HOURS, reminderCallPurpose, REMINDERS_CRON } from "./reminders.server";
export {
  calendarConnectionStatus,
  calendarReadJob,
  calendarSyncJob,
  calendarWriteJob,
  CALENDAR_SYNC_CRON,
  connectCalendar,
  disconnectCalendar,
  queueCalendarWrite,
  syncCalendar,
} from "./calendar-sync.server";
