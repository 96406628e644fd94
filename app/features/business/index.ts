/** What other features may use of business, safe in the browser: dates and times in the business's zone. */
export { formatTimeOfDayLabel, formatWhen, zoneName } from "./when";
