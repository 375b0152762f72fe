import { type ClauseUnit, splitClausesOnce } from './clauses';
import { pagesOf, sectionsOf, sectionTitleAt } from './places';
import type { TermKind, TermValue } from './types';

/**
 * The terms of a contract whose values the sources may state differently: durations, notice
 * periods, amounts, dates, governing law and the parties, each with its span, a comparable
 * normalised value ("P2Y", "USD 200000", "2024-01-01", "New York") and a topic (what it is about:
 * "Term of the agreement", "Breach fee", ...). Pure and deterministic.
 */

/** A term found in a text: its value, kind and topic. */
export interface Term extends TermValue {
  kind: TermKind;
  /** What the term is about, as a reviewer reads it: "Non-compete period", "Governing law". */
  topic: string;
  /** What terms are compared by: the topic's key, or for a term no topic fits, its sentence with the values masked. */
  group: string;
  /** Where the topic was read: words of the term's clause, its heading, or (no topic fits) the clause's wording. */
  topicFrom: 'clause' | 'heading' | 'wording';
  /** Its clause's wording with the values masked, and a label of it: the finer grouping, where a topic is too coarse. */
  wording: string;
  wordingTopic: string;
}

/** The normalised value of a placeholder without an example ("[State]", "[Date]"): all placeholders of a kind are alike. */
export const PLACEHOLDER = '[placeholder]';
/** Parties are named in a contract's opening: its first this many characters. */
const PREAMBLE_CHARS = 2_000;

// --- numbers ---------------------------------------------------------------------------------

const SMALL: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const NUMBER_WORD = `(?:${[...Object.keys(TENS), ...Object.keys(SMALL)].sort((a, b) => b.length - a.length).join('|')}|hundred)`;
/** A number in words ("twenty-four", "one hundred") or digits, optionally repeated in digits: "thirty (30)". */
const NUMBER = `(?:(?:${NUMBER_WORD}(?:[\\s-]+(?:and[\\s-]+)?${NUMBER_WORD})*)(?:\\s*\\(\\s*\\d+\\s*\\))?|\\d+(?:\\.\\d+)?)`;

/** A number written in words or digits ("thirty (30)", "twenty-four", "12"), undefined if it is none. */
export function parseNumber(text: string): number | undefined {
  const inParens = /\(\s*(\d+)\s*\)/.exec(text);
  if (inParens) return Number(inParens[1]);
  const t = text.trim().toLowerCase();
  if (/^\d+(?:\.\d+)?$/.test(t)) return Number(t);
  let total = 0;
  let current = 0;
  let any = false;
  for (const word of t.split(/[\s-]+/)) {
    if (word === 'and' || word === 'a') continue;
    if (word in SMALL) current += SMALL[word]!;
    else if (word in TENS) current += TENS[word]!;
    else if (word === 'hundred') current = (current || 1) * 100;
    else if (word === 'thousand') {
      total += (current || 1) * 1000;
      current = 0;
    } else return undefined;
    any = true;
  }
  return any ? total + current : undefined;
}

// --- durations -------------------------------------------------------------------------------

const UNIT_CODES: Record<string, string> = { year: 'Y', month: 'M', week: 'W', day: 'D', hour: 'H' };
const DURATION = new RegExp(`\\b(${NUMBER})(?:\\s+|\\s*-\\s*)(?:(business|calendar|working)\\s+)?(year|month|week|day|hour)s?\\b`, 'gi');

/** A duration's comparable form: ISO 8601 ("P2Y", "P30D", "PT48H"), business days marked ("P10D business"). */
const ONE_DURATION = new RegExp(DURATION.source, 'i');

export function normalizeDuration(text: string): string | undefined {
  const m = ONE_DURATION.exec(text);
  if (!m) return undefined;
  const n = parseNumber(m[1]!);
  if (n === undefined) return undefined;
  const unit = UNIT_CODES[m[3]!.toLowerCase()]!;
  const business = m[2] && m[2].toLowerCase() !== 'calendar' ? ' business' : '';
  return unit === 'H' ? `PT${n}H` : `P${n}${unit}${business}`;
}

// --- amounts ---------------------------------------------------------------------------------

const CURRENCY_SIGNS: Record<string, string> = { us$: 'USD', $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY' };
const CURRENCY_WORDS: Record<string, string> = {
  dollar: 'USD',
  'us dollar': 'USD',
  euro: 'EUR',
  pound: 'GBP',
  'pounds sterling': 'GBP',
  'pound sterling': 'GBP',
};
const CODES = 'USD|EUR|GBP|CHF|JPY|CAD|AUD';
const FIGURE = '\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?';
const SCALE = '(?:\\s?(?:million|billion|thousand|mn|bn|m|k)\\b)?';
const AMOUNT = new RegExp(
  `(?:(US\\$|\\$|€|£|¥)\\s?(${FIGURE})(${SCALE})|\\b(${CODES})\\s?(${FIGURE})(${SCALE})|\\b(${FIGURE})(${SCALE})\\s?(US dollars?|dollars?|euros?|pounds? sterling|pounds?|${CODES})\\b)`,
  'gi',
);
const SCALES: Record<string, number> = { thousand: 1e3, k: 1e3, million: 1e6, m: 1e6, mn: 1e6, billion: 1e9, bn: 1e9 };

/** An amount's comparable form: currency code and value ("$200,000" = "USD 200000", "€1.5 million" = "EUR 1500000"). */
const ONE_AMOUNT = new RegExp(AMOUNT.source, 'i');

export function normalizeAmount(text: string): string | undefined {
  const m = ONE_AMOUNT.exec(text);
  if (!m) return undefined;
  const [currency, figure, scale] = m[1]
    ? [CURRENCY_SIGNS[m[1].toLowerCase()]!, m[2]!, m[3]!]
    : m[4]
      ? [m[4].toUpperCase(), m[5]!, m[6]!]
      : [CURRENCY_WORDS[m[9]!.toLowerCase().replace(/s\b/g, '')] ?? m[9]!.toUpperCase(), m[7]!, m[8]!];
  const value = Number(figure.replace(/,/g, '')) * (SCALES[scale.trim().toLowerCase()] ?? 1);
  return `${currency} ${Number.isInteger(value) ? value : Math.round(value * 100) / 100}`;
}

// --- dates -----------------------------------------------------------------------------------

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const DATE = new RegExp(
  `\\b(?:(${MONTH})\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})|(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:day\\s+of\\s+)?(${MONTH}),?\\s+(\\d{4})|(\\d{4})-(\\d{2})-(\\d{2}))\\b`,
  'gi',
);

const monthNumber = (name: string) => MONTH_NAMES.findIndex((m) => m.startsWith(name.toLowerCase().replace('.', '').slice(0, 3))) + 1;
const pad = (n: number) => String(n).padStart(2, '0');

/** A date's comparable form, ISO 8601: "January 1, 2024", "1 January 2024" and "2024-01-01" are all "2024-01-01". */
const ONE_DATE = new RegExp(DATE.source, 'i');

export function normalizeDate(text: string): string | undefined {
  const m = ONE_DATE.exec(text);
  if (!m) return undefined;
  const [year, month, day] = m[1]
    ? [Number(m[3]), monthNumber(m[1]), Number(m[2])]
    : m[5]
      ? [Number(m[6]), monthNumber(m[5]), Number(m[4])]
      : [Number(m[7]), Number(m[8]), Number(m[9])];
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  return `${year}-${pad(month)}-${pad(day)}`;
}

// --- governing law ---------------------------------------------------------------------------

/** Adjectives that name a legal system: "English law" is the law of England. */
const LAW_ADJECTIVES: Record<string, string> = {
  english: 'England',
  british: 'United Kingdom',
  scottish: 'Scotland',
  irish: 'Ireland',
  welsh: 'Wales',
  german: 'Germany',
  french: 'France',
  swiss: 'Switzerland',
  dutch: 'Netherlands',
  spanish: 'Spain',
  italian: 'Italy',
  austrian: 'Austria',
  swedish: 'Sweden',
  danish: 'Denmark',
  belgian: 'Belgium',
  canadian: 'Canada',
  australian: 'Australia',
  japanese: 'Japan',
  singaporean: 'Singapore',
  indian: 'India',
  chinese: 'China',
};
// A jurisdiction: a placeholder, or capitalised words ("the State of New York", "England and Wales").
const JURISDICTION = `(?:\\[[^\\[\\]\\n]{1,160}\\]|(?:the\\s+)?(?:(?:State|Commonwealth|Province|Republic|Kingdom|Canton|Emirate|Federal Republic)\\s+of\\s+)?[A-Z][\\w.'\u2019-]*(?:\\s+(?:and\\s+|of\\s+|the\\s+)?[A-Z][\\w.'\u2019-]*){0,4})`;
const LAWS_OF = new RegExp(`\\blaws?\\s+of\\s+(${JURISDICTION})`, 'g');
const NAMED_LAWS = new RegExp(`(${JURISDICTION})(?:['\u2019]s)?\\s+(?:laws?|legal\\s+framework)\\b`, 'g');
// What makes "the laws of X" the contract's law rather than where a party is incorporated.
const GOVERNS =
  /\b(?:govern\w*|constru\w*|interpret\w*|subject\s+to|under|in\s+accordance\s+with|per|auspices\s+of|apply|applies|applicable)\b/i;
const INCORPORATED = /\b(?:incorporated|organi[sz]ed|existing|formed|registered|established|chartered)\b[^.;]{0,40}$/i;
const NOT_A_JURISDICTION =
  /^(?:the|this|such|any|all|applicable|governing|local|other|these|its|their|relevant|same|said|national|international|federal|state|common|civil|data|privacy|employment|tax)$/i;

/** A governing law's comparable form: the jurisdiction's name ("the State of New York" = "New York", "English" = "England"). */
export function normalizeLaw(jurisdiction: string): string {
  const text = jurisdiction.trim();
  if (text.startsWith('[')) return placeholderValue(text, (example) => normalizeLaw(example.replace(/^["\u201c]|["\u201d]$/g, '')));
  const adjective = LAW_ADJECTIVES[text.toLowerCase()];
  if (adjective) return adjective;
  return text
    .replace(/^the\s+/i, '')
    .replace(/^(?:State|Commonwealth|Province|Canton|Emirate)\s+of\s+/i, '')
    .replace(/[.,;:'\u2019\s]+$/, '');
}

// --- placeholders ----------------------------------------------------------------------------

const BRACKET = /\[[^[\]\n]{0,200}\]/g;
/** The example a placeholder gives: `[X years, e.g., "5 years"]` gives `5 years`. */
function exampleOf(placeholder: string): string | undefined {
  const m = /\be\.\s?g\.?,?\s*(.*)\]$/i.exec(placeholder);
  if (!m) return undefined;
  const quoted = /^["\u201c]([^"\u201d]*)["\u201d]/.exec(m[1]!.trim());
  return (quoted ? quoted[1]! : m[1]!).trim() || undefined;
}

/** A placeholder's value: its example's, normalised, when it gives one; else `PLACEHOLDER`. */
function placeholderValue(placeholder: string, normalize: (example: string) => string | undefined): string {
  const example = exampleOf(placeholder);
  return (example !== undefined ? normalize(example) : undefined) ?? PLACEHOLDER;
}

/** Whether a term is a blank that suggests a value (`[e.g., "two years"]`): its value is the example's, proposed rather than stated. */
export const isSuggestion = (term: { text: string }): boolean => /^\[[^\]]*\be\.\s?g\./is.test(term.text);

/** Whether a bracketed text is a placeholder to fill in ("[Your Company Name]") rather than a name in brackets ("[AquaBlue Innovations]"). */
export function isPlaceholder(text: string): boolean {
  // Generic labels name a role, not a party: "Company A", "Party One".
  if (/^\[?(?:party|business|company|client|entity)\s+(?:[A-Z]|one|two|three)\]?$/i.test(text)) return true;
  return (
    /^\[.*\]$/s.test(text) &&
    /\b(?:name|company|party|your|insert|e\.g|date|state|country|address|recipient|x|specific|legal|full|jurisdiction|amount|number|supplier|client|customer|contractor|employee|employer|university|provider|vendor|buyer|seller|licensor|licensee|consultant|freelancer|business|discloser)\b/i.test(
      text,
    )
  );
}

// --- topics ----------------------------------------------------------------------------------

/** Topics by kind, each with the words that point to it; the nearest such word to a term decides. */
const TOPICS: Record<TermKind, readonly (readonly [string, RegExp])[]> = {
  duration: [
    ['Non-compete period', /compet/gi],
    ['Non-solicitation period', /solicit|poach|\bhire/gi],
    ['Confidentiality period', /confidential|non-?disclos|secre|surviv|persist|continue/gi],
    ['Return of information', /\breturn|destr|delet/gi],
    ['Warranty period', /warrant|defect/gi],
    ['Payment period', /\bpa(?:y|id)|invoice/gi],
    ['Delivery period', /deliver/gi],
    ['Cure period', /\bcure|remedy|rectif/gi],
    ['Record retention period', /\brecords?\b|retain|archiv/gi],
    ['Term of the agreement', /\bterm\b|in force|in effect|\bvalid\b|expir|duration of (?:this|the) agreement/gi],
  ],
  noticePeriod: [
    ['Notice of termination', /terminat/gi],
    ['Notice of inspection', /inspect|audit|verif/gi],
    ['Notice of outage', /outage/gi],
  ],
  amount: [
    ['Breach fee', /breach|penalt|infring|violat|transgression|\bfine\b|per incident|liquidated/gi],
    ['Late fee', /\blate\b|delay/gi],
    ['Liability cap', /liabilit|\bcap\b|not exceed/gi],
    ['Compensation', /compensat|salary|wage|remunerat|\bpay\b|payable|per hour|\bsum\b|price/gi],
  ],
  date: [
    ['Start date', /\bstart|commenc|begin/gi],
    ['End date', /\bend\b|terminat|expir|complet|deadline|until/gi],
    ['Effective date', /effective|dated|\bmade\b|entered|as of|agreement|^date\b/gim],
    ['Signature date', /\bsign|endorse|ratif|attest|execut|witness/gi],
  ],
  governingLaw: [],
  party: [],
};
const DEFAULT_TOPIC: Record<TermKind, string> = {
  duration: 'Period',
  noticePeriod: 'Notice period',
  amount: 'Amount',
  date: 'Date',
  governingLaw: 'Governing law',
  party: 'Parties',
};

/** The topic of a term at `[start, end)` of its clause: the nearest topic word in the clause (the term's own words count), else in its heading. */
function topicOf(
  kind: TermKind,
  clause: string,
  start: number,
  end: number,
  heading: string | undefined,
): { topic: string; from: 'clause' | 'heading' } | undefined {
  const rules = TOPICS[kind];
  if (rules.length === 0) return { topic: DEFAULT_TOPIC[kind], from: 'clause' };
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const [topic, words] of rules) {
    words.lastIndex = 0;
    for (let m = words.exec(clause); m; m = words.exec(clause)) {
      const distance = m.index >= end ? m.index - end : m.index + m[0].length <= start ? start - (m.index + m[0].length) : 0;
      if (distance < bestDistance) {
        bestDistance = distance;
        best = topic;
      }
    }
  }
  if (best) return { topic: best, from: 'clause' };
  for (const [topic, words] of rules) {
    words.lastIndex = 0;
    if (heading && words.test(heading)) return { topic, from: 'heading' };
  }
  return undefined;
}

// --- extraction ------------------------------------------------------------------------------

interface Found {
  kind: TermKind;
  start: number;
  end: number;
  normalized: string;
}

const NOTICE_AFTER = /^['\u2019"\u201d\]]*\s*(?:(?:of\s+)?(?:prior|advance|written|advanced)\s+){0,3}notice\b/i;
const NOTICE_BEFORE = /\bnotice\s+(?:period\s+)?(?:of|being)\s+(?:at\s+least\s+|not\s+less\s+than\s+)?$/i;

/** Durations in a clause (with brackets masked): "two (2) years", "30 days' notice" (a notice period), "12-month". */
function durationsIn(masked: string): Found[] {
  const out: Found[] = [];
  DURATION.lastIndex = 0;
  for (let m = DURATION.exec(masked); m; m = DURATION.exec(masked)) {
    const normalized = normalizeDuration(m[0]);
    if (!normalized) continue;
    const end = m.index + m[0].length;
    const notice = NOTICE_AFTER.test(masked.slice(end, end + 40)) || NOTICE_BEFORE.test(masked.slice(Math.max(0, m.index - 40), m.index));
    out.push({ kind: notice ? 'noticePeriod' : 'duration', start: m.index, end, normalized });
  }
  return out;
}

function amountsIn(masked: string): Found[] {
  const out: Found[] = [];
  AMOUNT.lastIndex = 0;
  for (let m = AMOUNT.exec(masked); m; m = AMOUNT.exec(masked)) {
    const normalized = normalizeAmount(m[0]);
    if (normalized) out.push({ kind: 'amount', start: m.index, end: m.index + m[0].length, normalized });
  }
  return out;
}

function datesIn(masked: string): Found[] {
  const out: Found[] = [];
  DATE.lastIndex = 0;
  for (let m = DATE.exec(masked); m; m = DATE.exec(masked)) {
    const normalized = normalizeDate(m[0]);
    if (normalized) out.push({ kind: 'date', start: m.index, end: m.index + m[0].length, normalized });
  }
  return out;
}

/**
 * Placeholders in a clause that stand for a value: with an example (`[e.g., "two years"]`, the
 * value is the example's; a bare number takes the unit after the bracket: `[e.g., "30"] days`), or
 * without one, by what they name ("[Date]", "[X years]", "[specific amount]").
 */
function placeholdersIn(clause: string): Found[] {
  const out: Found[] = [];
  BRACKET.lastIndex = 0;
  for (let m = BRACKET.exec(clause); m; m = BRACKET.exec(clause)) {
    const text = m[0];
    let end = m.index + text.length;
    const example = exampleOf(text);
    const after = clause.slice(end, end + 40);
    const unitAfter = /^\s*(?:(business|calendar|working)\s+)?(years?|months?|weeks?|days?|hours?)\b/i.exec(after);
    const kindOf = (): Found | undefined => {
      if (example !== undefined) {
        if (unitAfter && parseNumber(example) !== undefined) {
          end += unitAfter[0].length;
          const normalized = normalizeDuration(`${parseNumber(example)} ${unitAfter[0].trim()}`)!;
          return { kind: 'duration', start: m!.index, end, normalized };
        }
        const date = normalizeDate(example);
        if (date) return { kind: 'date', start: m!.index, end, normalized: date };
        const amount = normalizeAmount(example);
        if (amount) return { kind: 'amount', start: m!.index, end, normalized: amount };
        const duration = normalizeDuration(example);
        if (duration) return { kind: 'duration', start: m!.index, end, normalized: duration };
      }
      const inner = text.slice(1, -1);
      // Placeholders without a usable example: all alike within a kind.
      if (/\bdate\b|day,\s*month/i.test(inner)) return { kind: 'date', start: m!.index, end, normalized: PLACEHOLDER };
      if (/\bamount\b|\bfee\b|\bsum\b|\$|\bprice\b/i.test(inner)) return { kind: 'amount', start: m!.index, end, normalized: PLACEHOLDER };
      if (/\b(?:years?|months?|days?|weeks?|duration|period)\b/i.test(inner) && !/\bmiles?\b|\bkm\b/i.test(inner))
        return { kind: 'duration', start: m!.index, end, normalized: PLACEHOLDER };
      return undefined;
    };
    const found = kindOf();
    if (!found) continue;
    if (found.kind === 'duration') {
      const rest = clause.slice(found.end, found.end + 40);
      const before = clause.slice(Math.max(0, found.start - 40), found.start);
      if (NOTICE_AFTER.test(rest) || NOTICE_BEFORE.test(before)) found.kind = 'noticePeriod';
    }
    out.push(found);
  }
  return out;
}

/** The jurisdictions a clause names as the contract's law. */
function lawsIn(clause: string): Found[] {
  const out: Found[] = [];
  const add = (start: number, text: string) => {
    const jurisdiction = text.replace(/[\s,.;:]+$/, '').replace(/\s+(?:and|of|the)$/i, '');
    const normalized = normalizeLaw(jurisdiction);
    // "the applicable laws of", "Governing law": words that are no place.
    if (!jurisdiction.startsWith('[') && NOT_A_JURISDICTION.test(normalized.split(/\s+/)[0] ?? '')) return;
    out.push({ kind: 'governingLaw', start, end: start + jurisdiction.length, normalized });
  };
  LAWS_OF.lastIndex = 0;
  for (let m = LAWS_OF.exec(clause); m; m = LAWS_OF.exec(clause)) {
    const before = clause.slice(Math.max(0, m.index - 80), m.index);
    if (INCORPORATED.test(before) || !GOVERNS.test(before)) continue;
    add(m.index + m[0].length - m[1]!.length, m[1]!);
  }
  NAMED_LAWS.lastIndex = 0;
  for (let m = NAMED_LAWS.exec(clause); m; m = NAMED_LAWS.exec(clause)) {
    const before = clause.slice(Math.max(0, m.index - 40), m.index);
    const after = clause.slice(m.index + m[0].length, m.index + m[0].length + 30);
    if (!GOVERNS.test(before) && !/^\s+(?:shall\s+)?(?:apply|applies|govern|governs)\b/i.test(after)) continue;
    if (INCORPORATED.test(before)) continue;
    add(m.index, m[1]!);
  }
  return out;
}

// A party's name: a bracketed name or placeholder, or capitalised words ("Harbor Analytics Ltd").
const NAME = `(?:\\[[^\\[\\]\\n]{1,120}\\]|[A-Z][\\w&.'\u2019-]*(?:\\s+(?:[A-Z][\\w&.'\u2019-]*|of|de|du|von|&)){0,6})`;
// "between A and B", "by and between A and B", "entered into on [Date] by A as ... and B as ...".
const BETWEEN = new RegExp(
  `\\b(?:between|(?:entered\\s+into|concluded|made)\\b[^.;]{0,60}?\\bby(?:\\s+and\\s+between)?)\\s*:?\\s+(?:the\\s+)?(${NAME})`,
  'g',
);
const AND_NAME = new RegExp(`(?:,\\s*|\\s+)and\\s+(?:the\\s+)?(${NAME})`, 'g');
const DEFINED = new RegExp(
  `(${NAME})\\s*,?\\s*(?:\\((?:the\\s+|hereinafter\\s+)?["\u201c']|,?\\s*(?:herein(?:after)?\\s+)?(?:referred\\s+to|known)\\s+as\\s+(?:the\\s+)?["\u201c]?)`,
  'g',
);
const ROLE_LINE = new RegExp(`^([A-Z][\\w'\u2019]*(?:\\s+[A-Z][\\w'\u2019]*){0,2}):\\s+(${NAME})`);
const NOT_A_NAME =
  /^(?:The|This|That|Such|Each|Either|Both|Any|All|Effective|Agreement|Company|Party|Parties|Confidential|Date|Dated|In|On|As|For|By|WHEREAS|NOW)$/;

/** A party's comparable form: placeholders alike, names as written without brackets. */
export function normalizeParty(name: string): string {
  const text = name.trim();
  if (isPlaceholder(text)) return PLACEHOLDER;
  return text
    .replace(/^\[|\]$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The parties a clause of the opening names: "between A and B", "A ("Disclosing Party")", "Supplier: [Name]". */
function partiesIn(clause: string, named: boolean): Found[] {
  const out: Found[] = [];
  const add = (start: number, name: string) => {
    const trimmed = name.replace(/[\s,.;:]+$/, '');
    if (!trimmed.startsWith('[') && NOT_A_NAME.test(trimmed)) return;
    // "[Company Address], herein referred to as ...": an address is no party.
    if (/\b(?:address|location|located)\b/i.test(trimmed) || /\b(?:at|in)\s*$/i.test(clause.slice(0, start))) return;
    if (out.some((f) => f.start === start)) return;
    out.push({ kind: 'party', start, end: start + trimmed.length, normalized: normalizeParty(trimmed) });
  };
  BETWEEN.lastIndex = 0;
  // Only the first "between" names the parties: later ones (a signature line, a recital) repeat or mention them.
  const between = named ? null : BETWEEN.exec(clause);
  if (between) {
    const firstAt = between.index + between[0].length - between[1]!.length;
    add(firstAt, between[1]!);
    AND_NAME.lastIndex = firstAt + between[1]!.length;
    const second = AND_NAME.exec(clause);
    if (second && second.index - firstAt < 400) add(second.index + second[0].length - second[1]!.length, second[1]!);
  }
  DEFINED.lastIndex = 0;
  for (let m = DEFINED.exec(clause); m; m = DEFINED.exec(clause)) if (m[1]!.startsWith('[')) add(m.index, m[1]!);
  const role = ROLE_LINE.exec(clause);
  if (role && /\bname\b/i.test(role[2]!)) add(role[0].length - role[2]!.length, role[2]!);
  return out.sort((a, b) => a.start - b.start);
}

/** Later finds overlapping an earlier one are dropped; the order of the finders is their priority. */
function withoutOverlaps(found: Found[]): Found[] {
  const kept: Found[] = [];
  for (const f of found) if (!kept.some((k) => f.start < k.end && k.start < f.end)) kept.push(f);
  return kept.sort((a, b) => a.start - b.start);
}

/** The text with every bracket's inside blanked (same length): values inside placeholders are read by `placeholdersIn`. */
const masked = (text: string) => text.replace(BRACKET, (b) => `[${' '.repeat(b.length - 2)}]`);

/** A clause with its values masked and its words normalised: two sources' versions of one clause group together. */
function sentenceKey(kind: TermKind, clause: string, found: readonly Found[]): string {
  let out = '';
  let at = 0;
  for (const f of found) {
    out += `${clause.slice(at, f.start)} # `;
    at = f.end;
  }
  out += clause.slice(at);
  return `${kind}:${out
    .toLowerCase()
    .replace(/[^a-z0-9#]+/g, ' ')
    .trim()}`;
}

/** A short form of a clause for a topic's label, its term replaced by an ellipsis. */
function snippet(clause: string, f: Found): string {
  const text = `${clause.slice(0, f.start)}\u2026${clause.slice(f.end)}`.replace(/\s+/g, ' ').trim();
  return text.length <= 80 ? text : `${text.slice(0, 77)}\u2026`;
}

const MAY_BE_AMOUNT = new RegExp(`[$\u20ac\u00a3\u00a5]|${CODES}|[Dd]ollar|[Ee]uro|[Pp]ound`);
const MAY_BE_DURATION = /year|month|week|day|hour/i;
const MAY_BE_LAW = /\blaws?\b|legal\s+framework/i;

/** Options of `extractTerms`. */
export interface TermOptions {
  /** Where each page starts (a PDF's text): terms get their page. */
  pageStarts?: readonly number[];
}

/**
 * The terms of a text, in text order. Values are read clause by clause (see `splitClauses`), parties
 * only in the opening; each term's topic is the nearest topic word around it in its clause, else
 * its heading's; a term no topic fits is grouped by its clause's wording (values masked).
 */
export function extractTerms(text: string, options: TermOptions = {}): Term[] {
  const sections = sectionsOf(text);
  const sectionAt = (at: number, unit: ClauseUnit) => sectionTitleAt(sections, at) ?? unit.heading;
  const terms: Term[] = [];
  let named = false;
  for (const unit of splitClausesOnce(text).clauses) {
    const clause = unit.text;
    const blank = masked(clause);
    const parties = unit.start < PREAMBLE_CHARS ? partiesIn(clause, named) : [];
    if (parties.length >= 2) named = true;
    // Cheap tests first: most clauses of a long contract state none of these.
    const found = withoutOverlaps([
      ...(clause.includes('[') ? placeholdersIn(clause) : []),
      ...(MAY_BE_AMOUNT.test(blank) ? amountsIn(blank) : []),
      ...(/\d{4}/.test(blank) ? datesIn(blank) : []),
      ...(MAY_BE_DURATION.test(blank) ? durationsIn(blank) : []),
      ...(MAY_BE_LAW.test(clause) ? lawsIn(clause) : []),
      ...parties,
    ]);
    for (const f of found) {
      const topic = topicOf(f.kind, clause, f.start, f.end, unit.heading);
      const wording = sentenceKey(f.kind, clause, found);
      const wordingTopic = `${topic?.topic ?? DEFAULT_TOPIC[f.kind]}: \u201c${snippet(clause, f)}\u201d`;
      const section = sectionAt(unit.start + f.start, unit);
      const page = pagesOf(options.pageStarts, unit.start + f.start, unit.start + f.end)?.[0];
      terms.push({
        kind: f.kind,
        topic: topic?.topic ?? wordingTopic,
        group: topic ? `${f.kind}:${topic.topic.toLowerCase()}` : wording,
        topicFrom: topic?.from ?? 'wording',
        wording,
        wordingTopic,
        text: clause.slice(f.start, f.end),
        normalized: f.normalized,
        start: unit.start + f.start,
        end: unit.start + f.end,
        ...(section ? { section } : {}),
        ...(page !== undefined ? { page } : {}),
      });
    }
  }
  return terms;
}
