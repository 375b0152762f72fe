import { CLAUSE_MARKERS } from '../tasks/doc-merge/clause-groups/prompts';
import { DOC_MERGE_MARKERS, EXAMPLES_END } from '../tasks/doc-merge/prompts';
import { analyseMerge, clausesOf, informationUnits, proxyRatings, type Units } from '../tasks/doc-merge/score';
import { SECTION_MARKERS } from '../tasks/doc-merge/section-prompts';
import { type Random, randomInt } from '../util/random';
import { responderFor } from './prompt-input';
import type { Answer, AnswerContext } from './responders';

/**
 * Simulated answers to the document merging prompts. This is a simulator for testing the
 * machinery, not a claim about real models: it writes merged NDAs out of the source documents'
 * own clauses, forgetting some (more often the more text it is given) and keeping some statements
 * twice in different wordings, and it judges merges by the clause-level proxy of the task's score
 * plus noise. Aggregating drafts keeps more than merging afresh; improving re-adds part of what is
 * missing and drops part of what is repeated. Section prompts are answered by the same model on the
 * section's versions, the answer headed by the section's title; fusing drafts of a section (which
 * carries no versions) treats the drafts as the sources. With an invention share (`SimSettings`), it
 * also adds sentences no source has, from a stream of their own. A clause group's prompts (issue 38) are
 * answered alike on the group's clauses, as one paragraph.
 */

/** Share of the sources' pieces of information a single merge forgets, by the sources' length. */
export function dropProbability(sourceChars: number): number {
  return Math.min(0.6, 0.03 + 0.035 * (sourceChars / 1000));
}

/** Chance that a statement the sources phrase in several ways appears twice in a merge. */
export function duplicateProbability(sourceChars: number): number {
  return Math.min(0.5, 0.08 + 0.025 * (sourceChars / 1000));
}

const COT_FACTOR = 0.85;
/** Aggregating: covered statements are mostly kept, a few lost ones recovered from the sources. */
const AGGREGATE = { dropFactor: 0.45, recover: 0.15, keepRepeat: 0.6, repeatFactor: 0.7 } as const;
/** Improving: missing statements are re-added and repeated ones removed, each with some chance. */
const IMPROVE = { dropFactor: 0.35, recover: 0.3, keepRepeat: 0.55, repeatFactor: 0.35 } as const;

/**
 * Sentences the simulated model invents: NDA-sounding, written for this simulator, and in no source
 * (test/documents-provenance.test.ts checks the paper's NDAs and the generated ones), so tests know
 * which merged clauses have no source.
 */
export const INVENTED_CLAUSES: readonly string[] = [
  'The Receiving Party shall keep a written log of every person who has accessed the Confidential Information.',
  'Each party shall appoint a compliance officer who reviews adherence to this agreement every quarter.',
  'Confidential Information stored in the cloud must be encrypted with keys held only by the Disclosing Party.',
  'Any translation of the Confidential Information into another language remains subject to this agreement.',
  'The Receiving Party shall notify the Disclosing Party within forty-eight hours of discovering any security incident.',
  'Meetings at which Confidential Information is discussed shall be recorded in minutes signed by both parties.',
  'Neither party may assign its rights under this agreement to an affiliate without a board resolution of the other party.',
  'Printed copies of Confidential Information must be shredded on site under the supervision of a witness.',
  'The parties shall hold an annual audit of their information security measures at a mutually agreed venue.',
  'Disputes about the scope of Confidential Information shall first be referred to a neutral technical expert.',
  'The Receiving Party shall not photograph any facility of the Disclosing Party during site visits.',
  'Each employee who receives Confidential Information shall complete a privacy training course beforehand.',
  'The Disclosing Party may request a certificate of compliance signed by an officer of the Receiving Party once a year.',
  'Any software code disclosed under this agreement may only be reviewed on machines without internet access.',
  'The parties agree to revisit the list of protected materials whenever a new product line is launched.',
  'Samples and prototypes shall be stored in a locked cabinet with access limited to named engineers.',
  'Notices under this agreement may also be delivered by registered courier to the addresses on the signature page.',
  'The Receiving Party shall label all derivative materials with a prominent confidentiality legend.',
  'Any press release mentioning the other party requires its approval at least ten business days in advance.',
  'The obligations in this agreement bind any acquirer of substantially all assets of either party.',
  'Remote access to shared data rooms shall use two-factor authentication for every user account.',
  'The parties shall exchange updated contact details for their security teams every six months.',
  'Consultants engaged by the Receiving Party must sign a separate undertaking before seeing protected material.',
  'Each party bears its own legal costs for negotiating and executing this agreement.',
];
/** The largest invention share the simulator takes: one sentence in every paragraph. */
const MAX_INVENT_SHARE = 1;

const TITLES = ['NON-DISCLOSURE AGREEMENT', 'MERGED NON-DISCLOSURE AGREEMENT', 'CONFIDENTIALITY AND NON-DISCLOSURE AGREEMENT'];

interface Plan {
  keep: boolean;
  twice: boolean;
}

interface Input {
  documents: string[];
  drafts: string[];
  candidate?: string;
  /** The section a section prompt names. */
  section?: string;
}

function inputOf(prompt: string): Input {
  const end = prompt.lastIndexOf(EXAMPLES_END);
  const real = end === -1 ? prompt : prompt.slice(end + EXAMPLES_END.length);
  const blocks = (tag: string) =>
    [...real.matchAll(new RegExp(`<${tag}(\\d*)>\\n?([\\s\\S]*?)\\n?</${tag}\\1>`, 'g'))].map((m) => m[2]!.trim());
  return {
    documents: blocks('Doc'),
    drafts: blocks('Draft'),
    candidate: /<Candidate>\n?([\s\S]*?)\n?<\/Candidate>/.exec(real)?.[1]?.trim(),
    section: /the section "([^"]*)"/.exec(real)?.[1],
  };
}

const chars = (texts: readonly string[]) => texts.reduce((sum, t) => sum + t.length, 0);
const hasRewording = (unit: Units['units'][number]) => new Set(unit.map((c) => c.text)).size > 1;

/** The units in the order the documents tell them: by the earliest relative position of any of their wordings. */
function documentOrder(documents: readonly string[], { units }: Units): number[] {
  const at = new Map<string, number>();
  for (const document of documents) {
    const clauses = clausesOf(document);
    for (const [i, c] of clauses.entries()) at.set(c.text, Math.min(at.get(c.text) ?? 1, i / clauses.length));
  }
  const position = units.map((unit) => Math.min(...unit.map((c) => at.get(c.text) ?? 1)));
  return units.map((_, u) => u).sort((a, b) => position[a]! - position[b]! || a - b);
}

/** The invention share asked for, checked: a share outside [0, 1] is a caller's mistake. */
function inventShareOf(context: AnswerContext | undefined): number {
  const share = context?.settings.inventShare ?? 0;
  if (!(share >= 0 && share <= MAX_INVENT_SHARE)) throw new RangeError(`inventShare must be in [0, 1], got ${share}`);
  return share;
}

/**
 * Adds invented sentences to paragraphs' sentences, each paragraph with chance `share`, drawn from
 * the side stream only: the paragraphs themselves are what the answer's own stream made.
 */
function invent(paragraphs: string[][], context: AnswerContext | undefined): void {
  const share = inventShareOf(context);
  if (share === 0 || !context) return;
  for (const sentences of paragraphs) {
    if (context.side() >= share) continue;
    const sentence = INVENTED_CLAUSES[randomInt(context.side, INVENTED_CLAUSES.length)]!;
    sentences.splice(randomInt(context.side, sentences.length + 1), 0, sentence);
  }
}

/**
 * Writes an NDA from the sources' clauses following the plan: a repeat uses another wording,
 * somewhere later. A section is headed by its title, its paragraphs unnumbered. With an invention
 * share, some paragraphs get a sentence of no source.
 */
function compose(
  units: Units,
  order: readonly number[],
  plan: Plan[],
  random: Random,
  heading: string | undefined,
  context: AnswerContext | undefined,
): string {
  const sentences: string[] = [];
  const repeats: string[] = [];
  for (const u of order) {
    const unit = units.units[u]!;
    if (!plan[u]!.keep) continue;
    const first = unit[randomInt(random, unit.length)]!.text;
    sentences.push(first);
    const others = unit.map((c) => c.text).filter((t) => t !== first);
    if (plan[u]!.twice && others.length) repeats.push(others[randomInt(random, others.length)]!);
  }
  for (const repeat of repeats) sentences.splice(sentences.length - randomInt(random, Math.ceil(sentences.length / 2) + 1), 0, repeat);
  const grouped: string[][] = [];
  for (let i = 0; i < sentences.length; i += 3) grouped.push(sentences.slice(i, i + 3));
  invent(grouped, context);
  const paragraphs = grouped.map((group, p) => (heading === undefined ? `${p + 1}. ${group.join(' ')}` : group.join(' ')));
  return [heading ?? TITLES[randomInt(random, TITLES.length)]!, ...paragraphs].join('\n\n');
}

const tagged = (nda: string) => `<Merged>\n${nda}\n</Merged>`;

function mergeAnswer(documents: string[], factor: number, notes: boolean, heading?: string): Answer {
  const units = informationUnits(documents);
  const order = documentOrder(documents, units);
  const drop = factor * dropProbability(chars(documents));
  const repeat = factor * duplicateProbability(chars(documents));
  return (random, context) => {
    const plan = units.units.map((unit) => {
      const keep = random() >= drop;
      return { keep, twice: keep && hasRewording(unit) && random() < repeat };
    });
    const nda = tagged(compose(units, order, plan, random, heading, context));
    if (!notes) return nda;
    const shared = units.units.filter(hasRewording).length;
    const noun = heading === undefined ? 'NDAs' : 'versions';
    return `Notes: the ${documents.length} ${noun} contain about ${units.units.length} distinct statements; ${shared} of them appear in several ${noun} in different words and are written once below.\n${nda}`;
  };
}

function aggregateAnswer(documents: string[], drafts: string[], heading?: string): Answer {
  const units = informationUnits(documents);
  const order = documentOrder(documents, units);
  const drop = AGGREGATE.dropFactor * dropProbability(chars(documents));
  const repeat = AGGREGATE.repeatFactor * duplicateProbability(chars(documents));
  const coverages = drafts.map((draft) => analyseMerge(documents, draft, units).coverage);
  return (random, context) => {
    const plan = units.units.map((unit, u) => {
      const counts = coverages.map((c) => c[u]!);
      const covered = counts.some((c) => c > 0);
      const keep = covered ? random() >= drop : random() < AGGREGATE.recover;
      const repeated = counts.some((c) => c > 1);
      const coveredTwice = counts.filter((c) => c > 0).length > 1;
      const twice = keep && hasRewording(unit) && random() < (repeated ? AGGREGATE.keepRepeat : coveredTwice ? repeat : repeat / 2);
      return { keep, twice };
    });
    return tagged(compose(units, order, plan, random, heading, context));
  };
}

function improveAnswer(documents: string[], draft: string, heading?: string): Answer {
  const units = informationUnits(documents);
  const order = documentOrder(documents, units);
  const drop = IMPROVE.dropFactor * dropProbability(chars(documents));
  const repeat = IMPROVE.repeatFactor * duplicateProbability(chars(documents));
  const { coverage } = analyseMerge(documents, draft, units);
  return (random, context) => {
    const plan = units.units.map((unit, u) => {
      const keep = coverage[u]! > 0 ? random() >= drop : random() < IMPROVE.recover;
      const twice = keep && hasRewording(unit) && random() < (coverage[u]! > 1 ? IMPROVE.keepRepeat : repeat);
      return { keep, twice };
    });
    return tagged(compose(units, order, plan, random, heading, context));
  };
}

/** The proxy's ratings, each off by up to one point, as whole marks like a model gives. */
function judgeAnswer(documents: string[], candidate: string): Answer {
  const { redundancy, retention } = proxyRatings(documents, candidate);
  const mark = (value: number, random: Random) => Math.min(10, Math.max(0, Math.round(value + randomInt(random, 3) - 1)));
  return (random) => {
    const r = mark(redundancy, random);
    const k = mark(retention, random);
    const verdict =
      k >= 8
        ? 'keeps nearly all of the sources'
        : k >= 5
          ? 'misses a number of statements of the sources'
          : 'leaves out much of the sources';
    return `The candidate ${verdict}, and ${r >= 8 ? 'hardly repeats itself' : 'states several things more than once'}.\n<Redundancy>${r}</Redundancy>\n<Retained>${k}</Retained>`;
  };
}

const MARKERS = { ...DOC_MERGE_MARKERS, ...SECTION_MARKERS, ...CLAUSE_MARKERS };
type DocMergePrompt = keyof typeof MARKERS;

function answerFor(kind: DocMergePrompt, { documents, drafts, candidate, section }: Input): Answer | undefined {
  if (kind === 'aggregateSection') return drafts.length && section !== undefined ? aggregateAnswer(drafts, drafts, section) : undefined;
  if (documents.length === 0) return undefined;
  switch (kind) {
    case 'merge':
      return mergeAnswer(documents, 1, false);
    case 'mergeCot':
      return mergeAnswer(documents, COT_FACTOR, true);
    case 'aggregate':
      return drafts.length ? aggregateAnswer(documents, drafts) : undefined;
    case 'improve':
      return drafts.length === 1 ? improveAnswer(documents, drafts[0]!) : undefined;
    case 'judge':
    case 'judgeSection':
      return candidate === undefined ? undefined : judgeAnswer(documents, candidate);
    case 'mergeSection':
      return section === undefined ? undefined : mergeAnswer(documents, 1, false, section);
    case 'mergeSectionCot':
      return section === undefined ? undefined : mergeAnswer(documents, COT_FACTOR, true, section);
    case 'improveSection':
      return drafts.length === 1 && section !== undefined ? improveAnswer(documents, drafts[0]!, section) : undefined;
    // A clause group: the same model on the group's clauses, the answer one paragraph without a heading.
    case 'mergeClause':
      return mergeAnswer(documents, 1, false, '');
    case 'improveClause':
      return drafts.length === 1 ? improveAnswer(documents, drafts[0]!, '') : undefined;
  }
}

/** The document merging responder: undefined unless the prompt is one of its prompts with readable documents. */
export const docMergeResponder = responderFor('doc-merge', MARKERS, (kind, prompt) => answerFor(kind, inputOf(prompt)));
