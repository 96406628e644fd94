/**
 * The fixed sentences of a call, written per language rather than left to the model: the
 * voicemail a confirmation call leaves (spoken by the telephony provider's text-to-speech) and
 * the one-minute warning the listener reads. Like the crisis scripts, they are reviewed texts.
 */
type Language = "en" | "ar" | "es" | "fr" | "de" | "it";

interface CallTexts {
  /** The provider's <Say> language and a voice that speaks it. */
  say: { language: string; voice: string };
  voicemail(business: string, when: string): string;
  /** The voicemail of a reminder call (a few hours before the appointment). */
  reminderVoicemail(business: string, when: string): string;
  voicemailWithoutBooking: string;
  oneMinuteLeft: string;
  /** Said by the provider when the listener (the realtime model) cannot take the call. */
  apology: string;
  /** Said by the provider when our side cut a call that had had its conversation (ADR 0022): no promise of another. */
  cutGoodbye: string;
}

const TEXTS: Record<Language, CallTexts> = {
  en: {
    say: { language: "en-US", voice: "Google.en-US-Standard-C" },
    voicemail: (business, when) =>
      `Hello, this is the AI assistant of ${business}, calling about your booking on ${when}. We'll try again later, or use the link in your confirmation e-mail to change or cancel it. Goodbye.`,
    reminderVoicemail: (business, when) =>
      `Hello, this is the AI assistant of ${business} with a reminder of your appointment on ${when}. If you cannot come, please use the link in your confirmation e-mail to change or cancel it. Goodbye.`,
    voicemailWithoutBooking: "Hello, this is Sakina's AI assistant. We'll call again later. Goodbye.",
    oneMinuteLeft: "We have about one minute left together. Take your time with anything you would still like to say.",
    apology:
      "We're sorry: our listener cannot take your call right now because of a technical problem. This call does not count, and we will try again. Goodbye.",
    cutGoodbye: "We're sorry: a technical problem on our side has cut this call short. Thank you for talking with us. Goodbye.",
  },
  ar: {
    say: { language: "ar-XA", voice: "Google.ar-XA-Standard-A" },
    voicemail: (business, when) =>
      `مرحباً، معك المساعد الذكي لـ ${business}، نتصل بخصوص حجزك يوم ${when}. سنحاول الاتصال لاحقاً، ويمكنك تعديل الحجز أو إلغاؤه من الرابط في رسالة التأكيد. مع السلامة.`,
    reminderVoicemail: (business, when) =>
      `مرحباً، معك المساعد الذكي لـ ${business}، نذكّرك بموعدك يوم ${when}. إذا لم تتمكن من الحضور، يمكنك تعديل الموعد أو إلغاؤه من الرابط في رسالة التأكيد. مع السلامة.`,
    voicemailWithoutBooking: "مرحباً، معك المساعد الذكي من سكينة. سنتصل بك لاحقاً. مع السلامة.",
    oneMinuteLeft: "بقيت لنا دقيقة تقريباً. خذ وقتك في أي شيء ما زلت تود قوله.",
    apology: "نعتذر منك: لا يستطيع المستمع الرد على مكالمتك الآن بسبب مشكلة تقنية. هذه المكالمة لا تُحتسب، وسنحاول مجدداً. مع السلامة.",
    cutGoodbye: "نعتذر منك: انقطعت هذه المكالمة بسبب مشكلة تقنية من جهتنا. شكراً لحديثك معنا. مع السلامة.",
  },
  es: {
    say: { language: "es-ES", voice: "Google.es-ES-Standard-A" },
    voicemail: (business, when) =>
      `Hola, le habla el asistente de IA de ${business}, llamamos por su reserva del ${when}. Volveremos a intentarlo más tarde, o use el enlace de su correo de confirmación para cambiarla o cancelarla. Adiós.`,
    reminderVoicemail: (business, when) =>
      `Hola, le habla el asistente de IA de ${business} para recordarle su cita del ${when}. Si no puede venir, use el enlace de su correo de confirmación para cambiarla o cancelarla. Adiós.`,
    voicemailWithoutBooking: "Hola, le habla el asistente de IA de Sakina. Volveremos a llamar más tarde. Adiós.",
    oneMinuteLeft: "Nos queda más o menos un minuto. Tómese su tiempo para lo que todavía quiera decir.",
    apology:
      "Lo sentimos: por un problema técnico, nuestro oyente no puede atender su llamada ahora. Esta llamada no cuenta y lo intentaremos de nuevo. Adiós.",
    cutGoodbye: "Lo sentimos: un problema técnico de nuestra parte ha interrumpido esta llamada. Gracias por hablar con nosotros. Adiós.",
  },
  fr: {
    say: { language: "fr-FR", voice: "Google.fr-FR-Standard-A" },
    voicemail: (business, when) =>
      `Bonjour, ici l'assistant IA de ${business}, au sujet de votre réservation du ${when}. Nous rappellerons plus tard ; vous pouvez aussi la modifier ou l'annuler avec le lien de votre e-mail de confirmation. Au revoir.`,
    reminderVoicemail: (business, when) =>
      `Bonjour, ici l'assistant IA de ${business}, pour vous rappeler votre rendez-vous du ${when}. Si vous ne pouvez pas venir, utilisez le lien de votre e-mail de confirmation pour le modifier ou l'annuler. Au revoir.`,
    voicemailWithoutBooking: "Bonjour, ici l'assistant IA de Sakina. Nous rappellerons plus tard. Au revoir.",
    oneMinuteLeft: "Il nous reste environ une minute. Prenez votre temps pour ce que vous aimeriez encore dire.",
    apology:
      "Nous sommes désolés : à cause d'un problème technique, notre écoutant ne peut pas prendre votre appel maintenant. Cet appel ne compte pas, et nous réessaierons. Au revoir.",
    cutGoodbye:
      "Nous sommes désolés : un problème technique de notre côté a interrompu cet appel. Merci d'avoir parlé avec nous. Au revoir.",
  },
  de: {
    say: { language: "de-DE", voice: "Google.de-DE-Standard-A" },
    voicemail: (business, when) =>
      `Hallo, hier ist der KI-Assistent von ${business} wegen Ihrer Buchung am ${when}. Wir versuchen es später noch einmal, oder nutzen Sie den Link in Ihrer Bestätigungs-E-Mail, um sie zu ändern oder abzusagen. Auf Wiederhören.`,
    reminderVoicemail: (business, when) =>
      `Hallo, hier ist der KI-Assistent von ${business} mit einer Erinnerung an Ihren Termin am ${when}. Wenn Sie nicht kommen können, nutzen Sie bitte den Link in Ihrer Bestätigungs-E-Mail, um ihn zu ändern oder abzusagen. Auf Wiederhören.`,
    voicemailWithoutBooking: "Hallo, hier ist der KI-Assistent von Sakina. Wir rufen später noch einmal an. Auf Wiederhören.",
    oneMinuteLeft: "Wir haben noch etwa eine Minute. Nehmen Sie sich Zeit für alles, was Sie noch sagen möchten.",
    apology:
      "Es tut uns leid: Wegen eines technischen Problems kann unser Zuhörer Ihren Anruf gerade nicht annehmen. Dieser Anruf zählt nicht, und wir versuchen es erneut. Auf Wiederhören.",
    cutGoodbye:
      "Es tut uns leid: Ein technisches Problem auf unserer Seite hat diesen Anruf unterbrochen. Danke für das Gespräch. Auf Wiederhören.",
  },
  it: {
    say: { language: "it-IT", voice: "Google.it-IT-Standard-A" },
    voicemail: (business, when) =>
      `Buongiorno, sono l'assistente IA di ${business} e la chiamo per la sua prenotazione di ${when}. Riproveremo più tardi, oppure usi il link nell'e-mail di conferma per modificarla o annullarla. Arrivederci.`,
    reminderVoicemail: (business, when) =>
      `Buongiorno, sono l'assistente IA di ${business} e le ricordo il suo appuntamento di ${when}. Se non può venire, usi il link nell'e-mail di conferma per modificarlo o annullarlo. Arrivederci.`,
    voicemailWithoutBooking: "Buongiorno, sono l'assistente IA di Sakina. Richiameremo più tardi. Arrivederci.",
    oneMinuteLeft: "Ci resta circa un minuto. Si prenda il tempo per tutto ciò che vorrebbe ancora dire.",
    apology:
      "Ci scusi: per un problema tecnico il nostro ascoltatore non può rispondere alla sua chiamata in questo momento. Questa chiamata non conta e riproveremo. Arrivederci.",
    cutGoodbye:
      "Ci dispiace: un problema tecnico da parte nostra ha interrotto questa chiamata. Grazie di aver parlato con noi. Arrivederci.",
  },
};

/** The call's fixed texts in its language (English for a language without its own). */
export function callTexts(language: string): CallTexts {
  return TEXTS[(language in TEXTS ? language : "en") as Language];
}

export const callTextLanguages = Object.keys(TEXTS) as Language[];
