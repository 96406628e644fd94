/** The voice settings' ranges and choices (spec section 9 and screen 14); shared by page and server. */
export const VOICE_SPEED = { min: 0.5, max: 2, step: 0.1, default: 1 } as const;
export const VOICE_CREATIVITY = { min: 0.1, max: 1, step: 0.1, default: 0.8 } as const;
export const speechLocales = ["en-US", "en-GB", "es-ES", "fr-FR", "de-DE", "it-IT", "ar-SA"] as const;
/** What "Test voice" reads when the owner has not typed anything. */
export const MAX_TEST_TEXT = 500;
