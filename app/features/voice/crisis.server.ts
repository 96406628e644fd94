import { parsePhoneNumberFromString } from "libphonenumber-js/max";

/**
 * Fixed, reviewed crisis texts. The model never improvises these: when crisis language is heard
 * the bridge tells it to read the script for the caller's language and country word for word.
 */
const LINES: Record<string, Record<string, string>> = {
  US: {
    en: "In the United States, call 911 now if you are in danger. You can call or text 988, the Suicide and Crisis Lifeline, or text HOME to 741741.",
    es: "En Estados Unidos, llama al 911 ahora si estás en peligro. Puedes llamar o enviar un mensaje al 988, o enviar HOME al 741741.",
    ar: "في الولايات المتحدة، اتصل بالرقم 911 الآن إذا كنت في خطر. يمكنك الاتصال أو إرسال رسالة إلى 988، أو إرسال كلمة HOME إلى 741741.",
    fr: "Aux États-Unis, appelez le 911 maintenant si vous êtes en danger. Vous pouvez appeler ou écrire au 988, ou envoyer HOME au 741741.",
    de: "In den USA rufen Sie jetzt die 911 an, wenn Sie in Gefahr sind. Sie können die 988 anrufen oder ihr schreiben, oder HOME an 741741 senden.",
    it: "Negli Stati Uniti, chiama subito il 911 se sei in pericolo. Puoi chiamare o scrivere al 988, oppure inviare HOME al 741741.",
  },
  GB: {
    en: "In the United Kingdom, call 999 now if you are in danger, or call Samaritans free on 116 123, any time.",
  },
  CA: {
    en: "In Canada, call 911 now if you are in danger, or call or text 988 any time.",
    fr: "Au Canada, appelez le 911 maintenant si vous êtes en danger, ou appelez ou écrivez au 988 à tout moment.",
  },
  AU: {
    en: "In Australia, call 000 now if you are in danger, or call Lifeline on 13 11 14 any time.",
  },
  DEFAULT: {
    en: "If you are in danger, please call your local emergency number now.",
    ar: "إذا كنت في خطر، اتصل برقم الطوارئ المحلي الآن من فضلك. في السعودية الرقم 911، وفي الإمارات 999.",
    es: "Si estás en peligro, llama ahora al número de emergencias local. En España y en Europa, el 112.",
    fr: "Si vous êtes en danger, appelez maintenant le numéro d'urgence local. En France et en Europe, le 112.",
    de: "Wenn Sie in Gefahr sind, rufen Sie jetzt die örtliche Notrufnummer an. In Deutschland und Europa die 112.",
    it: "Se sei in pericolo, chiama subito il numero di emergenza locale. In Italia e in Europa, il 112.",
  },
};

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

export function crisisScript(language: string, phone: string | null) {
  const country = (phone && parsePhoneNumberFromString(phone)?.country) || "DEFAULT";
  const lines = LINES[country] ?? LINES.DEFAULT!;
  const line = lines[language] ?? LINES.DEFAULT![language] ?? lines.en ?? LINES.DEFAULT!.en!;
  return [OPENING[language] ?? OPENING.en, line, STAY[language] ?? STAY.en].join(" ");
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
