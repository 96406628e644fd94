/**
 * Emergency numbers and crisis lines for every country the dialling policy allows by default
 * (the union of the CALL_COUNTRIES, EMPATHY_CALL_COUNTRIES and DEMO_CALL_COUNTRIES defaults in
 * app/platform/env.server.ts). Data only: the page, the listener's crisis script and the e-mails
 * read the same rows.
 *
 * Each number carries where it was confirmed and when. The pages were read as stored copies (the
 * machine this was written on has no internet), so `checked` says so. A number found only in a
 * third-party guide says so in `note`; an emergency number no stored page confirmed is marked
 * `unconfirmed`. A crisis line is listed only when a page confirmed it; every other country gets
 * its emergency number and the directory below, never a line nobody could confirm. A core market
 * left without a line says why in `noLineNote`: what was searched and what was found instead.
 */

export interface Source {
  url: string;
  /** ISO date the page was read, and how (e.g. "2026-11-26 (stored copy)"). */
  checked: string;
  note?: string;
}

export type EmergencyService = "police" | "ambulance" | "fire";

export interface EmergencyNumber {
  number: string;
  /** Absent: the number reaches every emergency service. */
  service?: EmergencyService;
}

export interface HelpLine {
  /** The service's own name, in its own language: it is what the caller hears when it answers. */
  name: string;
  number: string;
  /** The number takes text messages as well as calls. */
  text?: boolean;
  source: Source;
}

export interface CountryHelp {
  emergency: { numbers: EmergencyNumber[]; source: Source; unconfirmed?: true };
  lines: HelpLine[];
  /**
   * For maintainers, when `lines` is empty: why no line is listed (what the stored pages showed and
   * why it was not enough). Visitors and callers get the directory in their own language instead.
   */
  noLineNote?: string;
}

const CHECKED = "2026-11-26 (stored copy)";
/** When the Arabic-speaking markets' lines were searched for again. */
const RECHECKED = "2026-12-02 (stored copy)";

/** An international directory of free, confidential help lines, for countries without a confirmed line here. */
export const HELP_DIRECTORY = {
  name: "Find A Helpline",
  url: "https://findahelpline.com",
  label: "findahelpline.com",
  source: {
    url: "https://api-pubmed-ncbi.laibokeji.com/39848729",
    checked: CHECKED,
    note: "Lancet Psychiatry 2025;12(2):100-110 names Find A Helpline as the directory used for its survey of 150 countries.",
  },
} as const;

const EU_112: CountryHelp["emergency"] = {
  numbers: [{ number: "112" }],
  source: {
    url: "https://www.govtech.com/public-safety/European-Emergency-Number-112-Now-Works.html",
    checked: CHECKED,
    note: "The European Commission's announcement that 112 works in every EU member state.",
  },
};

const eu = (...lines: HelpLine[]): CountryHelp => ({ emergency: EU_112, lines });

const SAMARITANS_IE: HelpLine = {
  name: "Samaritans",
  number: "116 123",
  source: { url: "http://www.newstalk.com/reader/47.301/69999/0/", checked: CHECKED, note: "Free from anywhere on the island of Ireland." },
};

/** The General Secretariat of Mental Health's hotline answers on two numbers; the box shows them on one row. */
const EGYPT_MENTAL_HEALTH_HOTLINE = (number: string): HelpLine => ({
  name: "الخط الساخن للأمانة العامة للصحة النفسية وعلاج الإدمان",
  number,
  source: {
    url: "https://elmogaz.com/721088",
    checked: RECHECKED,
    note: "News report (Al Mogaz) of the Ministry of Health and Population: free mental-health consultations, 24 hours, on 08008880700 and 0220816831. 08008880700 is also the number of the Secretariat's suicide-prevention campaign (amay1.sarmady.net/news/details/1326960).",
  },
});

export const HELP_LINES = {
  US: {
    emergency: {
      numbers: [{ number: "911" }],
      source: {
        url: "https://health.wyo.gov/publichealth/prevention/wivpp/suicide-prevention/988-suicide-crisis-lifeline",
        checked: CHECKED,
      },
    },
    lines: [
      {
        name: "988 Suicide & Crisis Lifeline",
        number: "988",
        text: true,
        source: {
          url: "https://health.wyo.gov/publichealth/prevention/wivpp/suicide-prevention/988-suicide-crisis-lifeline",
          checked: CHECKED,
        },
      },
    ],
  },
  CA: {
    emergency: {
      numbers: [{ number: "911" }],
      source: { url: "https://www1.brampton.ca/EN/residents/Emergency-Management/Pages/About-911.aspx", checked: CHECKED },
    },
    lines: [
      {
        name: "9-8-8: Suicide Crisis Helpline",
        number: "988",
        text: true,
        source: {
          url: "https://www.newswire.ca/news-releases/government-of-canada-launches-three-digit-suicide-crisis-helpline-896472116.html",
          checked: CHECKED,
        },
      },
    ],
  },
  GB: {
    emergency: {
      numbers: [{ number: "999" }, { number: "112" }],
      source: {
        url: "https://hermesbagsco.com/Understanding-911--Differences-between-Canada-and-the-UK",
        checked: CHECKED,
        note: "Third-party guide.",
      },
    },
    lines: [
      {
        name: "Samaritans",
        number: "116 123",
        source: { url: "https://www.samaritans.org/how-we-can-help/contact-samaritan/", checked: CHECKED },
      },
    ],
  },
  IE: eu(SAMARITANS_IE),
  AU: {
    emergency: {
      numbers: [{ number: "000" }],
      source: { url: "https://lifelineh2h.org.au/get-help/telephone-crisis-support/faqs/", checked: CHECKED },
    },
    lines: [
      {
        name: "Lifeline",
        number: "13 11 14",
        source: { url: "https://lifelineh2h.org.au/get-help/telephone-crisis-support/faqs/", checked: CHECKED },
      },
    ],
  },
  NZ: {
    emergency: {
      numbers: [{ number: "111" }],
      source: { url: "https://www.nbr.co.nz/article/emergency-dial-111-or-112-ck-216147", checked: CHECKED },
    },
    lines: [],
  },
  DE: eu(
    {
      name: "TelefonSeelsorge",
      number: "0800 111 0 111",
      source: { url: "https://www.domradio.de/glossar/telefonseelsorge-0", checked: CHECKED },
    },
    {
      name: "TelefonSeelsorge",
      number: "0800 111 0 222",
      source: { url: "https://www.domradio.de/glossar/telefonseelsorge-0", checked: CHECKED },
    },
  ),
  FR: eu({
    name: "3114, numéro national de prévention du suicide",
    number: "3114",
    source: { url: "https://www.service-public.fr/particuliers/actualites/A15206", checked: CHECKED },
  }),
  ES: eu({
    name: "024, Línea de atención a la conducta suicida",
    number: "024",
    source: { url: "https://www.rtve.es/noticias/20220509/sanidad-presenta-telefono-prevencion-suicidio/2347183.shtml", checked: CHECKED },
  }),
  IT: eu({
    name: "Telefono Amico Italia",
    number: "02 2327 2327",
    source: {
      url: "https://www.agensir.it/quotidiano/2020/12/12/natale-2020-telefono-amico-italia-dalle-10-del-24-alla-mezzanotte-del-26-dicembre-i-volontari-risponderanno-h24-a-chi-si-sente-solo/",
      checked: CHECKED,
      note: "Usually answered from 10:00 to 24:00.",
    },
  }),
  AT: eu(),
  BE: eu(),
  BG: eu(),
  HR: eu(),
  CY: eu(),
  CZ: eu(),
  DK: eu(),
  EE: eu(),
  FI: eu(),
  GR: eu(),
  HU: eu(),
  LV: eu(),
  LT: eu(),
  LU: eu(),
  MT: eu(),
  NL: eu(),
  PL: eu(),
  PT: eu(),
  RO: eu(),
  SK: eu(),
  SI: eu(),
  SE: eu(),
  CH: {
    emergency: {
      numbers: [{ number: "112" }, { number: "144", service: "ambulance" }, { number: "117", service: "police" }],
      source: { url: "https://ch.ch/en/road-accident-what-should-i-do", checked: CHECKED },
    },
    lines: [
      {
        name: "Die Dargebotene Hand / La Main Tendue / Telefono Amico",
        number: "143",
        source: {
          url: "https://ch.ch/en/road-accident-what-should-i-do",
          checked: CHECKED,
          note: "The federal portal lists it as the 'Helping Hand' counselling helpline.",
        },
      },
    ],
  },
  MX: {
    emergency: {
      numbers: [{ number: "911" }],
      source: { url: "https://zamudionoticias.mx/?p=17586", checked: CHECKED },
    },
    lines: [
      {
        name: "Línea de la Vida",
        number: "800 911 2000",
        source: {
          url: "https://www.eluniversal.com.mx/nacion/promueven-la-linea-de-la-vida-tras-presentar-encuesta-sobre-consumo-de-drogas-asi-puedes-pedir-ayuda/",
          checked: CHECKED,
          note: "Run by CONASAMA (Secretaría de Salud), 24 hours.",
        },
      },
    ],
  },
  AR: {
    emergency: {
      numbers: [{ number: "911" }],
      source: {
        url: "https://elsoldeiquique.cl/el-numero-de-emergencia-911-un-salvavidas-que-sudamerica-adopta-y-chile-necesita/",
        checked: CHECKED,
      },
    },
    lines: [],
  },
  CL: {
    emergency: {
      numbers: [
        { number: "131", service: "ambulance" },
        { number: "133", service: "police" },
        { number: "132", service: "fire" },
      ],
      source: {
        url: "https://elsoldeiquique.cl/el-numero-de-emergencia-911-un-salvavidas-que-sudamerica-adopta-y-chile-necesita/",
        checked: CHECKED,
      },
    },
    lines: [],
  },
  CO: {
    emergency: {
      numbers: [{ number: "123" }],
      source: { url: "https://wradio.com.co/2023/08/25/numero-para-llamar-a-emergencias-es-el-mismo-en-toda-colombia/", checked: CHECKED },
    },
    lines: [],
  },
  PE: {
    emergency: {
      numbers: [
        { number: "105", service: "police" },
        { number: "106", service: "ambulance" },
      ],
      source: {
        url: "https://elsoldeiquique.cl/el-numero-de-emergencia-911-un-salvavidas-que-sudamerica-adopta-y-chile-necesita/",
        checked: CHECKED,
        note: "The page confirms only that 911 is being rolled out in Lima and Callao; 105 and 106 were not found in a stored page.",
      },
      unconfirmed: true,
    },
    lines: [],
  },
  SA: {
    emergency: {
      numbers: [{ number: "911" }, { number: "997", service: "ambulance" }],
      source: {
        url: "https://expat.com/en/guide/middle-east/saudi-arabia/34695-emergencies-in-saudi-arabia.html",
        checked: CHECKED,
        note: "911 is the unified number of the National Center for Security Operations (Riyadh, Makkah, Madinah, Eastern Province: arabnews.com/node/1531421); 999 police, 998 civil defence.",
      },
    },
    lines: [
      {
        name: "المركز الوطني لتعزيز الصحة النفسية",
        number: "920033360",
        source: {
          url: "https://progress.guide/?p=12890",
          checked: RECHECKED,
          note: "Third-party directory: the centre's suicide-prevention and psychological-support line, 24/7, citing ncmh.org.sa (no stored copy of the centre's own page). A 920 unified number: shared cost, not toll-free.",
        },
      },
      {
        name: "مركز اتصال وزارة الصحة",
        number: "937",
        source: {
          url: "https://progress.guide/?p=12890",
          checked: RECHECKED,
          note: "Third-party directory: the Ministry of Health's 24/7 line for psychological help and crisis intervention. The ministry's own release (devdiscourse.com/article/business/697735, PR Newswire 2019) calls 937 its toll-free, round-the-clock call centre for medical consultations and referrals.",
        },
      },
    ],
  },
  AE: {
    emergency: {
      numbers: [
        { number: "999", service: "police" },
        { number: "998", service: "ambulance" },
      ],
      source: { url: "https://trekmedics.org/database/united_arab_emirates/?country=United%20Arab%20Emirates", checked: CHECKED },
    },
    lines: [
      {
        name: "خط الدعم النفسي",
        number: "800 4673",
        source: {
          url: "https://www.thenationalnews.com/uae/health/uae-s-mental-health-helpline-receives-more-than-700-calls-during-pandemic-1.1091296",
          checked: RECHECKED,
          note: "News report (The National, 2020): the National Programme for Happiness and Wellbeing's toll-free line (800-HOPE), Arabic and English, also on WhatsApp; opened during COVID-19. Its own page (hope.hw.gov.ae/index_ar.html) describes the line, but the stored copy shows no number.",
        },
      },
      {
        name: "تحدّث لنسمعك – مؤسسة الإمارات للخدمات الصحية",
        number: "800 8877",
        source: {
          url: "https://www.aletihad.ae/news/%D8%A7%D9%84%D8%A5%D9%85%D8%A7%D8%B1%D8%A7%D8%AA/4649310/10-%D8%A2%D9%84%D8%A7%D9%81-%D9%85%D8%B3%D8%AA%D9%81%D9%8A%D8%AF-%D9%85%D9%86-%D9%85%D8%A8%D8%A7%D8%AF%D8%B1%D8%A9--%D8%AA%D8%AD%D8%AF%D8%AB-%D9%84%D9%86%D8%B3%D9%85%D8%B9%D9%83--%D9%84%D9%84%D8%B5%D8%AD%D8%A9-%D8%A7%D9%84%D9%86%D9%81%D8%B3%D9%8A%D8%A9",
          checked: RECHECKED,
          note: "News report (Al Ittihad, 2026-03-05): Emirates Health Services' free psychological-support line, answered by psychologists every day 9:00–21:00.",
        },
      },
    ],
  },
  QA: {
    emergency: { numbers: [{ number: "999" }], source: { url: "https://wgoqatar.com/180195", checked: CHECKED } },
    lines: [
      {
        name: "خط المساعدة الوطني للصحة النفسية",
        number: "16000",
        source: {
          url: "https://www.zawya.com/en/life/health/qatar-mental-health-support-added-to-emergency-urgent-care-services-xtbvbpel",
          checked: RECHECKED,
          note: "News report (Zawya): Hamad Medical Corporation's helpline, Saturday to Thursday 8:00–18:00; choose Arabic or English, then 4 for mental health; out of hours, an emergency department. HMC's own page (hamad.qa, May 2024) confirms the line still runs; its stored copy shows no number.",
        },
      },
    ],
  },
  KW: {
    emergency: {
      numbers: [{ number: "112" }],
      source: { url: "https://news.kuwaittimes.net/website/moh-ready-for-dust-related-emergency-cases/", checked: CHECKED },
    },
    lines: [],
    noLineNote:
      "Searched 2026-12-02 (stored copies): the Supreme Council for Family Affairs launched urgent telephone psychological consultations in March 2026 (kuwaitnews.com/124917), but no stored page gave their number; a third-party directory (progress.guide/atlas/asia/kuwait) says Kuwait has no national suicide-prevention line and lists only hospital switchboards.",
  },
  BH: {
    emergency: {
      numbers: [{ number: "999" }],
      source: { url: HELP_DIRECTORY.url, checked: "2026-11-26", note: "Not found in a stored page." },
      unconfirmed: true,
    },
    lines: [],
    noLineNote:
      "Searched 2026-12-02 (stored copies): the Ministry of Health announced a psychological-support hotline for frontline health workers in 2020 (fccib.net/news/n/news/psychological-help-on-way-for-medics.html) with no number for the public; no stored page names a public line.",
  },
  OM: {
    emergency: {
      numbers: [{ number: "9999" }],
      source: {
        url: "http://www.expat.com/forum/viewtopic.php?id=581082",
        checked: CHECKED,
        note: "A resident's forum post: Royal Oman Police operations centre.",
      },
    },
    lines: [],
    noLineNote:
      "Searched 2026-12-02 (stored copies): the Ministry of Social Development ran nine psychosocial-support lines during COVID-19 (omanobserver.om, 2020) without numbers in the stored copy; a third-party directory lists only hospital switchboards, on a page headed with another country's name (progress.guide/?p=12770).",
  },
  JO: {
    emergency: {
      numbers: [{ number: "911" }],
      source: { url: "https://www.jordannews.jo/Section-109/News/PSD-received-6-million-emergency-calls-in-2023-33986", checked: CHECKED },
    },
    lines: [],
    noLineNote:
      "Searched 2026-12-02 (stored copies): the Ministry of Health's National Center for Mental Health announced a free 24-hour support line during COVID-19 (altaj.news/jordannews/31257) with no number in the stored copy. Jordan River Foundation's free 110 line (almadenahnews.com/article/524710) is for children and for adults calling about a child, so it is not read to every caller, although a third-party directory calls it a crisis line (progress.guide/atlas/asia/jordan).",
  },
  EG: {
    emergency: {
      numbers: [
        { number: "123", service: "ambulance" },
        { number: "122", service: "police" },
      ],
      source: {
        url: "https://progress.guide/atlas/africa/egypt",
        checked: CHECKED,
        note: "Third-party guide; it confirms 123 (ambulance). 122 (police) was not found in a stored page.",
      },
      unconfirmed: true,
    },
    lines: [EGYPT_MENTAL_HEALTH_HOTLINE("0800 888 0700"), EGYPT_MENTAL_HEALTH_HOTLINE("02 2081 6831")],
  },
  MA: {
    emergency: {
      numbers: [
        { number: "19", service: "police" },
        { number: "15", service: "ambulance" },
      ],
      source: {
        url: "https://trekmedics.org/database/morocco-2/",
        checked: CHECKED,
        note: "15 is Protection Civile (fire and ambulance); 19 police (riadzany.blogspot.com, 2015, DGSN announcement). Gendarmerie 177 outside towns.",
      },
    },
    lines: [],
    noLineNote:
      "Searched 2026-12-02 (stored copies): Sourire de Reda's Stop Silence listens by chat and app, not by phone (lnt.ma, 2020); the Ordre des médecins' regional listening numbers of March 2020 were for the COVID-19 lockdown, 14:00–16:00 (bladi.net); a third-party directory says Morocco has no national suicide-prevention line (progress.guide/atlas/africa/morocco).",
  },
} satisfies Record<string, CountryHelp>;

export type HelpCountry = keyof typeof HELP_LINES;

export const helpCountries = Object.keys(HELP_LINES) as HelpCountry[];

export function isHelpCountry(value: unknown): value is HelpCountry {
  return typeof value === "string" && Object.hasOwn(HELP_LINES, value);
}

export function helpFor(country: HelpCountry): CountryHelp {
  return HELP_LINES[country];
}

/**
 * The country a page language most likely means when the browser names no region. English goes
 * to the United States, Sakina's largest English-speaking market.
 */
const LANGUAGE_COUNTRY: Record<string, HelpCountry> = { ar: "SA", de: "DE", en: "US", es: "ES", fr: "FR", it: "IT" };

/** Language tags of an Accept-Language header, most preferred first (from its first 256 characters: browsers send far fewer). */
function acceptedTags(header: string) {
  return header
    .slice(0, 256)
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.tag && entry.tag !== "*" && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}

/**
 * The visitor's likely country, for the help lines: one they chose, else the country of their
 * phone number, else the first region their browser names that has a row (ar-SA → SA), else the
 * first language it names (de → DE), else the page's language.
 */
export function likelyHelpCountry(input: {
  chosen?: string | null;
  phoneCountry?: string | null;
  acceptLanguage?: string | null;
  pageLanguage: string;
}): HelpCountry {
  const chosen = input.chosen?.trim().toUpperCase();
  if (isHelpCountry(chosen)) return chosen;
  if (isHelpCountry(input.phoneCountry)) return input.phoneCountry;
  const tags = acceptedTags(input.acceptLanguage ?? "");
  for (const tag of tags) {
    const region = tag
      .split("-")
      .find((part, index) => index > 0 && /^[a-z]{2}$/i.test(part))
      ?.toUpperCase();
    if (isHelpCountry(region)) return region;
  }
  for (const tag of tags) {
    const country = LANGUAGE_COUNTRY[tag.split("-")[0]!.toLowerCase()];
    if (country) return country;
  }
  return LANGUAGE_COUNTRY[input.pageLanguage] ?? "US";
}
