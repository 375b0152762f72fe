import { pick, type Random, randomInt, seededRandom, shuffled } from '../../util/random';
import {
  CLAUSE_TAILS,
  CLAUSE_TEMPLATES,
  CONTRACT_TITLES,
  CONTRACT_TOPICS,
  type ContractTopic,
  CUSTOMERS,
  QUALIFIERS,
  REWORDINGS,
  ROLES,
  SUPPLIERS,
  WORKSTREAMS,
} from './contract-samples';
import { type DocMergeProblem, MAX_DOCUMENT_CHARS, MAX_DOCUMENTS, MIN_DOCUMENTS } from './dataset';

/**
 * A data room: `count` long services agreements of one customer with different suppliers, all
 * negotiated from one template. Every contract has numbered sections (one of several heading
 * styles) of numbered clauses; each keeps most of the template's clauses, rewords some, changes a
 * few numbers, adds clauses of its own, and has the optional sections only some contracts have.
 */

/** Share of the template's clauses a contract keeps. */
const KEEP = 0.85;
/** Chance that a contract has an optional section. */
const OPTIONAL = 0.6;
const REWORD = 0.35;
const RENUMBER = 0.08;
/** Chance per section of a clause only this contract has. */
const OWN_CLAUSE = 0.3;
const TAIL = 0.3;
export const MIN_CONTRACT_CHARS = 2_000;
const MIN_TOPICS = 4;
/** Below this many characters per topic of the template, a contract covers fewer topics. */
const CHARS_PER_TOPIC = 1_500;
/** About what a contract's title, parties and signature take, and one section heading. */
const PREAMBLE_CHARS = 500;
const HEADING_CHARS = 35;
export const MAX_CONTRACT_CHARS = 750_000;

function roman(n: number): string {
  const numerals: [number, string][] = [
    [1000, 'M'],
    [900, 'CM'],
    [500, 'D'],
    [400, 'CD'],
    [100, 'C'],
    [90, 'XC'],
    [50, 'L'],
    [40, 'XL'],
    [10, 'X'],
    [9, 'IX'],
    [5, 'V'],
    [4, 'IV'],
    [1, 'I'],
  ];
  let out = '';
  for (const [value, letters] of numerals) for (; n >= value; n -= value) out += letters;
  return out;
}

/** How a contract writes its section headings. */
const HEADING_STYLES: readonly ((n: number, title: string) => string)[] = [
  (n, t) => `${n}. ${t}`,
  (n, t) => `${n}. ${t.toUpperCase()}`,
  (n, t) => `ARTICLE ${roman(n)} - ${t.toUpperCase()}`,
  (n, t) => `Section ${n}. ${t}`,
  (n, t) => `## ${n}. ${t}`,
];

/** One of the topic's objects, qualified and tied to a workstream: "the revised rate card for the billing platform". */
function objectOf(random: Random, topic: ContractTopic): string {
  const noun = pick(random, topic.objects).replace(/^(?:the|any|each) /, '');
  return `the ${pick(random, QUALIFIERS)} ${noun} for the ${pick(random, WORKSTREAMS)}`;
}

/** What a topic's clauses are drawn from: its templates in a shuffled order, each used once before any is used again. */
interface Deck {
  topic: ContractTopic;
  roles: readonly [string, string];
  sections: number;
  templates: string[];
}

/**
 * One sentence about one of the topic's objects, its parties and numbers drawn. Templates are
 * dealt without repeats: two sentences of one template say nearly the same thing.
 */
function sentence(random: Random, deck: Deck): string {
  const { topic, roles, sections } = deck;
  if (deck.templates.length === 0) deck.templates = shuffled(random, CLAUSE_TEMPLATES);
  const [binds, other] = random() < 0.5 ? roles : ([roles[1], roles[0]] as const);
  const plain = deck.templates.pop()!;
  const text = random() < TAIL ? `${plain.slice(0, -1)}${pick(random, CLAUSE_TAILS)}.` : plain;
  const filled = text.replace(/\{(\w)\}/g, (_, key: string) => {
    switch (key) {
      case 'S':
        return binds;
      case 'P':
        return other;
      case 'M':
        return 'shall';
      case 'O':
        return objectOf(random, topic);
      case 'N':
        return String(pick(random, [2, 3, 5, 7, 10, 14, 15, 20, 30, 45, 60, 90]));
      case 'K':
        return String(1 + randomInt(random, 9));
      default:
        return `${1 + randomInt(random, sections)}.${1 + randomInt(random, 8)}`;
    }
  });
  return filled[0]!.toUpperCase() + filled.slice(1);
}

/** A clause of one or two sentences. */
const clause = (random: Random, deck: Deck) => Array.from({ length: 1 + randomInt(random, 2) }, () => sentence(random, deck)).join(' ');

/** The same clause as another contract words it: a wording swapped, now and then a number changed. */
function negotiated(random: Random, text: string): string {
  let out = text;
  if (random() < REWORD) {
    const [x, y] = pick(random, REWORDINGS);
    out = out.includes(x) ? out.replace(x, y) : out.replace(y, x);
  }
  if (random() < RENUMBER)
    out = out.replace(/\b(\d+) (days|months|years|business days|percent)\b/, (_, n: string, unit: string) => `${Number(n) + 5} ${unit}`);
  return out;
}

/**
 * `count` contracts of about `chars` characters each (within a third from 10,000 characters up),
 * reproducible from `seed`; 30 contracts of 200,000 characters take ~60 ms.
 */
export function generateDataRoom(count: number, chars: number, seed: number): DocMergeProblem {
  if (!Number.isInteger(count) || count < MIN_DOCUMENTS || count > MAX_DOCUMENTS) {
    throw new RangeError(`a data room needs ${MIN_DOCUMENTS} to ${MAX_DOCUMENTS} documents, got ${count}`);
  }
  if (!Number.isInteger(chars) || chars < MIN_CONTRACT_CHARS || chars > MAX_CONTRACT_CHARS) {
    throw new RangeError(`contracts of ${MIN_CONTRACT_CHARS} to ${MAX_CONTRACT_CHARS} characters can be generated, got ${chars}`);
  }
  const random = seededRandom(seed);
  const roles = pick(random, ROLES);
  const customer = pick(random, CUSTOMERS);
  const title = pick(random, CONTRACT_TITLES);
  // Short contracts cover fewer topics, so that each section still holds a few clauses.
  const topics = CONTRACT_TOPICS.slice(0, Math.max(MIN_TOPICS, Math.floor(chars / CHARS_PER_TOPIC)));
  const expectedSections = topics.filter((t) => t.core).length + OPTIONAL * topics.filter((t) => !t.core).length;
  // The template: per topic, clauses until what a contract keeps of them (and its own clause) comes
  // closest to its share of the length, the preamble and the headings set aside.
  const perSection = (chars - PREAMBLE_CHARS) / expectedSections - HEADING_CHARS;
  const decks: Deck[] = topics.map((topic) => ({ topic, roles, sections: topics.length, templates: [] }));
  const template = decks.map((deck) => {
    const clauses: string[] = [];
    let length = 0;
    do {
      const text = clause(random, deck);
      clauses.push(text);
      length += text.length + 8;
    } while ((length + (length / clauses.length) * (OWN_CLAUSE + 1 / 2)) * KEEP < perSection);
    return clauses;
  });
  const firstSupplier = randomInt(random, SUPPLIERS.length);
  const day = 1 + randomInt(random, 28);

  return {
    documents: Array.from({ length: count }, (_, d) => {
      const supplier = SUPPLIERS[(firstSupplier + d) % SUPPLIERS.length]!;
      const heading = pick(random, HEADING_STYLES);
      const preamble = [
        title,
        `This agreement is made on ${day + (d % 3)} March 2025 between ${customer}, referred to as ${roles[1]}, and ${supplier}, referred to as ${roles[0]}.`,
        `${roles[1][0]!.toUpperCase()}${roles[1].slice(1)} wishes to obtain services of the kind described below, and ${roles[0]} has agreed to provide them on the terms of this agreement.`,
      ];
      const sections: string[] = [];
      topics.forEach((topic, t) => {
        if (!topic.core && random() >= OPTIONAL) return;
        const n = sections.length + 1;
        const clauses = template[t]!.filter(() => random() < KEEP).map((c) => negotiated(random, c));
        if (random() < OWN_CLAUSE) clauses.splice(randomInt(random, clauses.length + 1), 0, clause(random, decks[t]!));
        const body = clauses.map((c, i) => `${n}.${i + 1} ${c}`).join('\n\n');
        sections.push(`${heading(n, pick(random, topic.titles))}\n\n${body}`);
      });
      const signature = 'IN WITNESS WHEREOF the parties have signed this agreement on the date first written above.';
      return [...preamble, ...sections, signature].join('\n\n');
    }),
  };
}

/** Chance that a contract words one clause of the template with a sub-clause of its own added. */
const OWN_SUBCLAUSE = 0.1;

/** A workstream as a heading writes it: "Leeds Data Centre". */
const titled = (text: string) => text.replace(/\b[a-z]/g, (c) => c.toUpperCase());

/**
 * `count` contracts of about `chars` characters each with `clauses` numbered clauses ("1. Fees and
 * Charges for the Billing Platform", then its sub-clauses "1.1 ...", "1.2 ..."), each clause a section
 * of its own: the clause-dense data rooms, up to a million characters a contract, that
 * `generateDataRoom` (a few dozen sections of up to 750,000 characters) does not make. Every contract
 * has every clause of the template under the same number, words some of them differently, changes a
 * few numbers and adds a sub-clause of its own here and there; reproducible from `seed`.
 */
export function generateClauseRoom(count: number, chars: number, clauses: number, seed: number): DocMergeProblem {
  if (!Number.isInteger(count) || count < MIN_DOCUMENTS || count > MAX_DOCUMENTS) {
    throw new RangeError(`a data room needs ${MIN_DOCUMENTS} to ${MAX_DOCUMENTS} documents, got ${count}`);
  }
  if (!Number.isInteger(clauses) || clauses < 2 || clauses > 999) {
    throw new RangeError(`contracts of 2 to 999 clauses can be generated, got ${clauses}`);
  }
  if (!Number.isInteger(chars) || chars < MIN_CONTRACT_CHARS || chars > MAX_DOCUMENT_CHARS || chars < clauses * 500) {
    throw new RangeError(
      `contracts of ${MIN_CONTRACT_CHARS} to ${MAX_DOCUMENT_CHARS} characters, at least 500 a clause, can be generated, got ${chars} for ${clauses} clauses`,
    );
  }
  const random = seededRandom(seed);
  const roles = pick(random, ROLES);
  const customer = pick(random, CUSTOMERS);
  const title = pick(random, CONTRACT_TITLES);
  const decks: Deck[] = CONTRACT_TOPICS.map((topic) => ({ topic, roles, sections: clauses, templates: [] }));
  // The template: clause i is about topic ⌊i·topics/clauses⌋ (the topics in their usual order), with a
  // title of its own.
  const template = Array.from({ length: clauses }, (_, i) => {
    const deck = decks[Math.floor((i * decks.length) / clauses)]!;
    const heading = `${pick(random, deck.topic.titles)} for the ${titled(pick(random, WORKSTREAMS))}`;
    return { deck, heading, subclauses: [] as string[] };
  });
  // What clause n comes to in a contract: its heading line, its sub-clauses ("n.k text", blank lines
  // between), and on average OWN_SUBCLAUSE of one more. Each clause aims at what is left of the
  // length for the clauses still to write, so that one clause's surplus is made up by the next.
  let left = chars - PREAMBLE_CHARS;
  template.forEach((c, i) => {
    const numbered = (text: string) => `${i + 1}.${c.subclauses.length + 1} ${text}`.length + 2;
    const expected = (length: number, subclauses: number) =>
      length + (OWN_SUBCLAUSE * (length - c.heading.length)) / Math.max(1, subclauses);
    const target = left / (clauses - i);
    let length = `${i + 1}. ${c.heading}`.length + 2;
    for (;;) {
      const text = clause(random, c.deck);
      const longer = length + numbered(text);
      // A sub-clause is kept while the clause comes closer to its share with it than without it.
      if (
        c.subclauses.length > 0 &&
        Math.abs(expected(longer, c.subclauses.length + 1) - target) > Math.abs(expected(length, c.subclauses.length) - target)
      )
        break;
      c.subclauses.push(text);
      length = longer;
    }
    left -= expected(length, c.subclauses.length);
  });
  const firstSupplier = randomInt(random, SUPPLIERS.length);
  const day = 1 + randomInt(random, 28);

  return {
    documents: Array.from({ length: count }, (_, d) => {
      const supplier = SUPPLIERS[(firstSupplier + d) % SUPPLIERS.length]!;
      const heading = pick(random, HEADING_STYLES.slice(0, 2));
      const preamble = [
        title,
        `This agreement is made on ${day + (d % 3)} March 2025 between ${customer}, referred to as ${roles[1]}, and ${supplier}, referred to as ${roles[0]}.`,
        `${roles[1][0]!.toUpperCase()}${roles[1].slice(1)} wishes to obtain services of the kind described below, and ${roles[0]} has agreed to provide them on the terms of this agreement.`,
      ];
      const body = template.map(({ deck, heading: text, subclauses }, i) => {
        const n = i + 1;
        const own = subclauses.map((s) => negotiated(random, s));
        if (random() < OWN_SUBCLAUSE) own.splice(randomInt(random, own.length + 1), 0, clause(random, deck));
        return `${heading(n, text)}\n\n${own.map((s, k) => `${n}.${k + 1} ${s}`).join('\n\n')}`;
      });
      const signature = 'IN WITNESS WHEREOF the parties have signed this agreement on the date first written above.';
      return [...preamble, ...body, signature].join('\n\n');
    }),
  };
}
