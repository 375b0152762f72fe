import { groupSentences, parseCounts, splitSentences } from '../tasks/keyword-counting/parse';
import { fmtCounts, KEYWORD_COUNTING_MARKERS } from '../tasks/keyword-counting/prompts';
import { addCounts, type Counts, countMentions } from '../tasks/keyword-counting/score';
import { hashSeed, type Random, randomInt, seededRandom } from '../util/random';
import { responderFor } from './prompt-input';
import type { Answer } from './responders';
import { poisson } from './sampling';

/**
 * Simulated answers to the keyword counting prompts, for testing the machinery: a tally of the
 * countries really named (found with a gazetteer) plus a random number of mistakes that grows
 * faster than the number of mentions, sums with occasional slips, and splits that now and then
 * drop or move a sentence. The rates are tuned to give every scheme a measurable spread of
 * scores; they are not a claim about how real models count.
 */

/** Country names the simulated model knows, as the texts write them. */
export const GAZETTEER = [
  'Afghanistan',
  'Albania',
  'Algeria',
  'Andorra',
  'Angola',
  'Argentina',
  'Armenia',
  'Australia',
  'Austria',
  'Azerbaijan',
  'Bahamas',
  'Bahrain',
  'Bangladesh',
  'Barbados',
  'Belarus',
  'Belgium',
  'Belize',
  'Benin',
  'Bhutan',
  'Bolivia',
  'Bosnia and Herzegovina',
  'Botswana',
  'Brazil',
  'Brunei',
  'Bulgaria',
  'Burkina Faso',
  'Burundi',
  'Cambodia',
  'Cameroon',
  'Canada',
  'Cape Verde',
  'Central African Republic',
  'Chad',
  'Chile',
  'China',
  'Colombia',
  'Comoros',
  'Costa Rica',
  'Croatia',
  'Cuba',
  'Cyprus',
  'Czech Republic',
  'Denmark',
  'Djibouti',
  'Dominica',
  'Dominican Republic',
  'Ecuador',
  'Egypt',
  'El Salvador',
  'Equatorial Guinea',
  'Eritrea',
  'Estonia',
  'Eswatini',
  'Ethiopia',
  'Fiji',
  'Finland',
  'France',
  'Gabon',
  'Gambia',
  'Georgia',
  'Germany',
  'Ghana',
  'Greece',
  'Grenada',
  'Guatemala',
  'Guinea',
  'Guinea-Bissau',
  'Guyana',
  'Haiti',
  'Honduras',
  'Hungary',
  'Iceland',
  'India',
  'Indonesia',
  'Iran',
  'Iraq',
  'Ireland',
  'Israel',
  'Italy',
  'Jamaica',
  'Japan',
  'Jordan',
  'Kazakhstan',
  'Kenya',
  'Kiribati',
  'Kuwait',
  'Kyrgyzstan',
  'Laos',
  'Latvia',
  'Lebanon',
  'Lesotho',
  'Liberia',
  'Libya',
  'Liechtenstein',
  'Lithuania',
  'Luxembourg',
  'Madagascar',
  'Malawi',
  'Malaysia',
  'Maldives',
  'Mali',
  'Malta',
  'Mauritania',
  'Mauritius',
  'Mexico',
  'Moldova',
  'Monaco',
  'Mongolia',
  'Montenegro',
  'Morocco',
  'Mozambique',
  'Myanmar',
  'Namibia',
  'Nauru',
  'Nepal',
  'Netherlands',
  'New Zealand',
  'Nicaragua',
  'Niger',
  'Nigeria',
  'North Korea',
  'North Macedonia',
  'Norway',
  'Oman',
  'Pakistan',
  'Palau',
  'Panama',
  'Papua New Guinea',
  'Paraguay',
  'Peru',
  'Philippines',
  'Poland',
  'Portugal',
  'Qatar',
  'Romania',
  'Russia',
  'Rwanda',
  'Samoa',
  'San Marino',
  'Saudi Arabia',
  'Senegal',
  'Serbia',
  'Seychelles',
  'Sierra Leone',
  'Singapore',
  'Slovakia',
  'Slovenia',
  'Somalia',
  'South Africa',
  'South Korea',
  'South Sudan',
  'Spain',
  'Sri Lanka',
  'Sudan',
  'Suriname',
  'Sweden',
  'Switzerland',
  'Syria',
  'Taiwan',
  'Tajikistan',
  'Tanzania',
  'Thailand',
  'Togo',
  'Tonga',
  'Trinidad and Tobago',
  'Tunisia',
  'Turkey',
  'Turkmenistan',
  'Tuvalu',
  'Uganda',
  'Ukraine',
  'United Arab Emirates',
  'United Kingdom',
  'United States',
  'Uruguay',
  'Uzbekistan',
  'Vanuatu',
  'Venezuela',
  'Vietnam',
  'Yemen',
  'Zambia',
  'Zimbabwe',
] as const;

/** Mean number of systematic mistakes (see `countingModel`) in a passage with `mentions` country mentions. */
export const systematicLambda = (mentions: number) => 0.01 * mentions ** 1.7;
/** Mean number of further, independent mistakes per sample in a passage of `mentions` mentions and `chars` characters. */
export const randomLambda = (mentions: number, chars: number) => 0.015 * mentions ** 1.5 + chars / 5000;
/** Mean number of counting mistakes per sample; grows faster than the number of mentions. */
export const countLambda = (mentions: number, chars: number) => systematicLambda(mentions) + randomLambda(mentions, chars);

/** How often a sample repeats one of the passage's systematic mistakes: real samples share their errors. */
const SYSTEMATIC_PROBABILITY = 0.9;
const IMPROVE_SYSTEMATIC_FIX_PROBABILITY = 0.01;
const COT_FACTOR = 0.8;
const IMPROVE_FIX_PROBABILITY = 0.5;
const IMPROVE_NEW_MISTAKE_FACTOR = 0.6;
const MERGE_MISTAKES_PER_COUNTRY = 0.04;
const IMPROVE_MERGE_FIX_PROBABILITY = 0.85;
const IMPROVE_MERGE_NEW_MISTAKE_FACTOR = 0.2;
const SPLIT_MISTAKES_PER_SENTENCE = 0.015;

const total = (c: Counts) => Object.values(c).reduce((sum, n) => sum + n, 0);
const pickKey = (c: Counts, random: Random) => Object.keys(c)[randomInt(random, Object.keys(c).length)]!;
const present = (c: Counts): Counts => Object.fromEntries(Object.entries(c).filter(([, n]) => n > 0));

/** A counting mistake, off by exactly one mention: a mention missed (-1), counted twice or invented (+1). */
interface Slip {
  country: string;
  delta: -1 | 1;
}

function randomSlip(counts: Counts, random: Random): Slip {
  const r = random();
  const named = Object.keys(present(counts));
  if (named.length && r < 0.55) return { country: named[randomInt(random, named.length)]!, delta: -1 };
  if (named.length && r < 0.85) return { country: named[randomInt(random, named.length)]!, delta: 1 };
  return { country: GAZETTEER[randomInt(random, GAZETTEER.length)]!, delta: 1 };
}

const applySlip = (counts: Counts, { country, delta }: Slip) => {
  counts[country] = Math.max(0, (counts[country] ?? 0) + delta);
};

/**
 * How the simulated model counts one passage: the truth, the mistakes it tends to make on this
 * very passage (drawn from the text, so every sample shares them, like the paper's samples that
 * all miss the same mentions), and the mean number of further, independent mistakes.
 */
interface CountingModel {
  truth: Counts;
  systematic: Slip[];
  randomMean: number;
}

function countingModel(text: string): CountingModel {
  const truth = countMentions(text, GAZETTEER);
  const fixed = seededRandom(hashSeed('keyword-counting systematic', text));
  // Systematic slips are missed mentions, as in the paper's samples that all undercount repeated names.
  const mentions = Object.entries(truth).flatMap(([name, n]) => Array<string>(n).fill(name));
  const systematic = mentions.length
    ? Array.from(
        { length: poisson(fixed, systematicLambda(mentions.length)) },
        (): Slip => ({ country: mentions[randomInt(fixed, mentions.length)]!, delta: -1 }),
      )
    : [];
  return { truth, systematic, randomMean: randomLambda(total(truth), text.length) };
}

function sampleCount(start: Counts, model: CountingModel, systematicProbability: number, randomMean: number, random: Random): Counts {
  const counts = { ...start };
  for (const slip of model.systematic) if (random() < systematicProbability) applySlip(counts, slip);
  for (let n = poisson(random, randomMean); n > 0; n--) applySlip(counts, randomSlip(counts, random));
  return present(counts);
}

function countAnswer(text: string): Answer {
  const model = countingModel(text);
  return (random) => `Output: ${fmtCounts(sampleCount(model.truth, model, SYSTEMATIC_PROBABILITY, model.randomMean, random))}`;
}

function countCotAnswer(text: string): Answer {
  const passages = groupSentences(splitSentences(text), 4);
  const models = passages.map(countingModel);
  const all = total(countMentions(text, GAZETTEER));
  const mean = COT_FACTOR * countingModel(text).randomMean;
  return (random) => {
    // Systematic slips of each passage, and the whole text's random ones spread by share of mentions.
    const tallies = models.map((m) => {
      const share = all ? total(m.truth) / all : 1 / passages.length;
      return sampleCount(m.truth, m, SYSTEMATIC_PROBABILITY, mean * share, random);
    });
    const sum = tallies.reduce(addCounts, {});
    return ['Passages:', ...passages, 'Tallies:', ...tallies.map(fmtCounts), `Output: ${fmtCounts(sum)}`].join('\n');
  };
}

/**
 * Keeps what the attempt got right and fixes each wrong mention with some probability, rarely the
 * passage's systematic mistakes (the model keeps misreading the same mention), then slips a little.
 */
export function improveTally(text: string, attempt: Counts, random: Random): Counts {
  const model = countingModel(text);
  const counts = { ...attempt };
  for (const name of new Set([...Object.keys(model.truth), ...Object.keys(attempt)])) {
    const want = model.truth[name] ?? 0;
    const have = counts[name] ?? 0;
    const direction = Math.sign(have - want);
    const systematic = model.systematic.filter((s) => s.country === name && s.delta === direction).length;
    let fixed = 0;
    for (let unit = 0; unit < Math.abs(have - want); unit++) {
      if (random() < (unit < systematic ? IMPROVE_SYSTEMATIC_FIX_PROBABILITY : IMPROVE_FIX_PROBABILITY)) fixed++;
    }
    counts[name] = have - direction * fixed;
  }
  return sampleCount(counts, model, 0, IMPROVE_NEW_MISTAKE_FACTOR * model.randomMean, random);
}

/** One slip when adding up: a shared country not added, a country of B left out, or a sum off by one. */
function addMergeMistake(sum: Counts, a: Counts, b: Counts, random: Random): void {
  const shared = Object.keys(b).filter((k) => k in a);
  const r = random();
  if (shared.length && r < 0.4) {
    const k = shared[randomInt(random, shared.length)]!;
    sum[k] = random() < 0.5 ? a[k]! : b[k]!;
  } else if (Object.keys(b).length && r < 0.7) {
    delete sum[pickKey(b, random)];
  } else if (Object.keys(sum).length) {
    const k = pickKey(sum, random);
    sum[k] = Math.max(0, sum[k]! + (random() < 0.5 ? -1 : 1));
  }
}

const mergeLambda = (a: Counts, b: Counts) => MERGE_MISTAKES_PER_COUNTRY * new Set([...Object.keys(a), ...Object.keys(b)]).size;

function withMergeMistakes(start: Counts, a: Counts, b: Counts, mean: number, random: Random): Counts {
  const sum = { ...start };
  for (let n = poisson(random, mean); n > 0; n--) addMergeMistake(sum, a, b, random);
  return present(sum);
}

function mergeAnswer(a: Counts, b: Counts): Answer {
  return (random) => fmtCounts(withMergeMistakes(addCounts(a, b), a, b, mergeLambda(a, b), random));
}

function improveMergeAnswer(a: Counts, b: Counts, wrong: Counts): Answer {
  const right = addCounts(a, b);
  return (random) => {
    const fixed: Counts = {};
    for (const k of new Set([...Object.keys(wrong), ...Object.keys(right)])) {
      fixed[k] = random() < IMPROVE_MERGE_FIX_PROBABILITY ? (right[k] ?? 0) : (wrong[k] ?? 0);
    }
    const out = withMergeMistakes(fixed, a, b, IMPROVE_MERGE_NEW_MISTAKE_FACTOR * mergeLambda(a, b), random);
    return `I added every country of both tallies again.\nOutput: ${fmtCounts(out)}`;
  };
}

function splitAnswer(text: string, parts: number, bySentence: boolean): Answer {
  const sentences = splitSentences(text);
  return (random) => {
    const groups = (bySentence ? sentences.map((s) => [s]) : groupSentences(sentences, parts).map(splitSentences)).map((g) => [...g]);
    for (let n = poisson(random, SPLIT_MISTAKES_PER_SENTENCE * sentences.length); n > 0; n--) {
      const g = randomInt(random, groups.length);
      if (groups[g]!.length === 0) continue;
      if (random() < 0.4) groups[g]!.splice(randomInt(random, groups[g]!.length), 1);
      else if (g + 1 < groups.length) groups[g + 1]!.unshift(groups[g]!.pop()!);
      else if (g > 0) groups[g - 1]!.push(groups[g]!.shift()!);
    }
    const passages = groups.filter((g) => g.length > 0).map((g) => g.join(' '));
    return `{\n${passages.map((p, i) => `  "Passage ${i + 1}": ${JSON.stringify(p)}`).join(',\n')}\n}`;
  };
}

/** The text after the last `Input: ` line (the prompt's own input comes after its examples), up to `until`. */
function lastInput(prompt: string, until?: string): string | undefined {
  const start = prompt.lastIndexOf('\nInput: ');
  if (start === -1) return undefined;
  const rest = prompt.slice(start + '\nInput: '.length);
  const end = until ? rest.lastIndexOf(until) : -1;
  return (end === -1 ? rest : rest.slice(0, end)).trim();
}

function lastTally(prompt: string, label: string): Counts | undefined {
  const line = [...prompt.matchAll(new RegExp(`^${label}:(.*)$`, 'gm'))].at(-1)?.[1];
  return line === undefined ? undefined : parseCounts(line);
}

type KeywordPrompt = keyof typeof KEYWORD_COUNTING_MARKERS;

function answerFor(kind: KeywordPrompt, prompt: string): Answer | undefined {
  switch (kind) {
    case 'count': {
      const text = lastInput(prompt);
      return text === undefined ? undefined : countAnswer(text);
    }
    case 'countCot': {
      const text = lastInput(prompt);
      return text === undefined ? undefined : countCotAnswer(text);
    }
    case 'split': {
      const text = lastInput(prompt);
      const instruction = prompt.slice(0, prompt.indexOf('</Instruction>'));
      const bySentence = instruction.includes('one passage per sentence');
      const parts = Number(/exactly (\d+) passages/.exec(instruction)?.[1]);
      return text === undefined || (!bySentence && !(parts > 0)) ? undefined : splitAnswer(text, parts, bySentence);
    }
    case 'merge': {
      const [a, b] = [lastTally(prompt, 'Tally A'), lastTally(prompt, 'Tally B')];
      return a && b && mergeAnswer(a, b);
    }
    case 'improveMerge': {
      const [a, b, wrong] = [lastTally(prompt, 'Tally A'), lastTally(prompt, 'Tally B'), lastTally(prompt, 'Wrong sum')];
      return a && b && wrong && improveMergeAnswer(a, b, wrong);
    }
    case 'improve': {
      const text = lastInput(prompt, '\nAttempt: ');
      const attempt = lastTally(prompt, 'Attempt');
      return text !== undefined && attempt ? (random) => `Output: ${fmtCounts(improveTally(text, attempt, random))}` : undefined;
    }
  }
}

/** The keyword counting responder: undefined unless the prompt is one of its prompts with a readable input. */
export const keywordCountingResponder = responderFor('keyword-counting', KEYWORD_COUNTING_MARKERS, answerFor);
