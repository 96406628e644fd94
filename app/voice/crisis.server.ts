import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { HELP_DIRECTORY, helpFor, isHelpCountry, type EmergencyService, type HelpCountry } from "~/lib/help-lines";

/**
 * Fixed, reviewed crisis texts. The model never improvises these: when crisis language is heard
 * the bridge tells it to read the script for the caller's language and country word for word.
 * The numbers come from the help-line table (app/lib/help-lines.ts), the words from here.
 */
interface CrisisWords {
  danger(emergency: string): string;
  line(name: string, number: string, text: boolean): string;
  directory: string;
  service: Record<EmergencyService, string>;
  /** When the caller's country is unknown or not in the table. */
  unknown: string;
}

const WORDS: Record<string, CrisisWords> = {
  en: {
    danger: (emergency) => `If you are in danger, please call ${emergency} now.`,
    line: (name, number, text) => `You can also ${text ? "call or text" : "call"} ${name} on ${number}.`,
    directory: `You can also find a free help line for your country at ${HELP_DIRECTORY.label}.`,
    service: { police: "for the police", ambulance: "for an ambulance", fire: "for the fire service" },
    unknown: "If you are in danger, please call your local emergency number now.",
  },
  ar: {
    danger: (emergency) => `إذا كنت في خطر، اتصل الآن من فضلك بالرقم ${emergency}.`,
    line: (name, number, text) => `ويمكنك أيضاً ${text ? "الاتصال أو المراسلة" : "الاتصال"} بـ ${name} على الرقم ${number}.`,
    directory: `ويمكنك أيضاً أن تجد رقم مساعدة مجانياً في بلدك على موقع ${HELP_DIRECTORY.label}.`,
    service: { police: "للشرطة", ambulance: "للإسعاف", fire: "للدفاع المدني" },
    unknown: "إذا كنت في خطر، اتصل برقم الطوارئ المحلي الآن من فضلك.",
  },
  es: {
    danger: (emergency) => `Si estás en peligro, llama ahora al ${emergency}.`,
    line: (name, number, text) => `También puedes ${text ? "llamar o escribir" : "llamar"} a ${name} al ${number}.`,
    directory: `También puedes encontrar una línea de ayuda gratuita de tu país en ${HELP_DIRECTORY.label}.`,
    service: { police: "para la policía", ambulance: "para una ambulancia", fire: "para los bomberos" },
    unknown: "Si estás en peligro, llama ahora al número de emergencias local.",
  },
  fr: {
    danger: (emergency) => `Si vous êtes en danger, appelez maintenant le ${emergency}.`,
    line: (name, number, text) => `Vous pouvez aussi ${text ? "appeler ou écrire à" : "appeler"} ${name} au ${number}.`,
    directory: `Vous trouverez aussi une ligne d'écoute gratuite pour votre pays sur ${HELP_DIRECTORY.label}.`,
    service: { police: "pour la police", ambulance: "pour une ambulance", fire: "pour les pompiers" },
    unknown: "Si vous êtes en danger, appelez maintenant le numéro d'urgence local.",
  },
  de: {
    danger: (emergency) => `Wenn Sie in Gefahr sind, rufen Sie bitte jetzt die ${emergency} an.`,
    line: (name, number, text) => `Sie können auch ${name} unter ${number} ${text ? "anrufen oder ihr schreiben" : "anrufen"}.`,
    directory: `Ein kostenloses Hilfe-Telefon in Ihrem Land finden Sie auch auf ${HELP_DIRECTORY.label}.`,
    service: { police: "für die Polizei", ambulance: "für den Rettungsdienst", fire: "für die Feuerwehr" },
    unknown: "Wenn Sie in Gefahr sind, rufen Sie jetzt die örtliche Notrufnummer an.",
  },
  it: {
    danger: (emergency) => `Se sei in pericolo, chiama subito il ${emergency}.`,
    line: (name, number, text) => `Puoi anche ${text ? "chiamare o scrivere a" : "chiamare"} ${name} al ${number}.`,
    directory: `Puoi anche trovare una linea di ascolto gratuita del tuo paese su ${HELP_DIRECTORY.label}.`,
    service: { police: "per la polizia", ambulance: "per un'ambulanza", fire: "per i vigili del fuoco" },
    unknown: "Se sei in pericolo, chiama subito il numero di emergenza locale.",
  },
};

/** The sentences naming a country's emergency numbers and help lines, in one language. */
function helpSentences(language: string, country: HelpCountry | null) {
  const words = WORDS[language] ?? WORDS.en!;
  if (!country) return [words.unknown, words.directory];
  const help = helpFor(country);
  const emergency = new Intl.ListFormat(language, { type: "disjunction" }).format(
    help.emergency.numbers.map((entry) => (entry.service ? `${entry.number} ${words.service[entry.service]}` : entry.number)),
  );
  const lines = help.lines.map((line) => words.line(line.name, line.number, Boolean(line.text)));
  return [words.danger(emergency), ...(lines.length ? lines : [words.directory])];
}

const OPENING: Record<string, string> = {
  en: "I'm really glad you told me. Your safety matters most right now, and I want you to get help from a person.",
  ar: "أنا ممتن لأنك أخبرتني. سلامتك هي الأهم الآن، وأريدك أن تحصل على مساعدة من شخص حقيقي.",
  es: "Me alegra mucho que me lo hayas contado. Tu seguridad es lo más importante ahora y quiero que recibas ayuda de una persona.",
  fr: "Je suis vraiment content que vous me l'ayez dit. Votre sécurité compte avant tout, et je veux que vous receviez l'aide d'une personne.",
  de: "Ich bin froh, dass Sie es mir gesagt haben. Ihre Sicherheit ist jetzt das Wichtigste, und ich möchte, dass Sie Hilfe von einem Menschen bekommen.",
  it: "Sono davvero contento che tu me l'abbia detto. La tua sicurezza è la cosa più importante ora e voglio che tu riceva aiuto da una persona.",
};

const STAY: Record<string, string> = {
  en: "I'm still here with you, and you can keep talking to me.",
  ar: "أنا ما زلت هنا معك، ويمكنك أن تستمر في الحديث معي.",
  es: "Sigo aquí contigo y puedes seguir hablando conmigo.",
  fr: "Je suis toujours là avec vous, et vous pouvez continuer à me parler.",
  de: "Ich bin weiter für Sie da, und Sie können weiter mit mir sprechen.",
  it: "Sono ancora qui con te e puoi continuare a parlarmi.",
};

/** The country of a phone number when the help-line table has a row for it. */
export function helpCountryOf(phone: string | null | undefined): HelpCountry | null {
  const country = phone ? parsePhoneNumberFromString(phone)?.country : undefined;
  return isHelpCountry(country) ? country : null;
}

/**
 * What the listener reads when crisis language is heard: for the called number's country, else
 * `fallbackCountry` (the Saudi agent's, when a web visitor gave no number), else no country.
 */
export function crisisScript(language: string, phone: string | null, fallbackCountry?: HelpCountry) {
  const country = helpCountryOf(phone) ?? fallbackCountry ?? null;
  return [OPENING[language] ?? OPENING.en, ...helpSentences(language, country), STAY[language] ?? STAY.en].join(" ");
}

const PHRASES: RegExp[] = [
  /\b(suicid\w*|kill (my ?self|me)|end (my|it all)|want(ed)? to die|hurt(ing)? my ?self|self[- ]harm|take my (own )?life|no reason to live)\b/i,
  /(انتحار|أنتحر|اقتل نفسي|أقتل نفسي|أنهي حياتي|أريد أن أموت|اريد ان اموت|أؤذي نفسي)/,
  /\b(suicid\w*|matarme|quitarme la vida|quiero morir(me)?|hacerme daño)\b/i,
  /\b(suicid\w*|me tuer|en finir|envie de mourir|me faire du mal)\b/i,
  /\b(selbstmord|suizid\w*|mich umbringen|nicht mehr leben|sterben will|mir etwas antun)\b/i,
  /\b(suicid\w*|uccidermi|farla finita|voglio morire|farmi del male)\b/i,
];

/** Whether a caller's words contain crisis language, in any of the six languages. */
export function soundsLikeCrisis(text: string) {
  return PHRASES.some((pattern) => pattern.test(text));
}

/** Phone numbers, e-mails and "my name is X" never reach the stored transcript. */
export function redact(text: string) {
  return text
    .replace(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g, "[email]")
    .replace(/\+?\d[\d\s().-]{6,}\d/g, "[phone]")
    .replace(/\b(my name is|i am called|je m'appelle|me llamo|ich heiße|mi chiamo)\s+[\p{L}'-]+(\s+[\p{L}'-]+)?/giu, "$1 [name]")
    .replace(/(اسمي)\s+\S+/g, "$1 [name]");
}
