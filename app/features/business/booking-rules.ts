/** The minimum notices an owner can choose, in minutes (0: none). */
export const noticeOptions = [0, 15, 30, 60, 120, 240, 720, 1440] as const;

/** How far ahead customers may book, in days; 60 unless the owner chooses another. */
export const bookingWindowOptions = [14, 30, 60, 90, 180, 365] as const;
