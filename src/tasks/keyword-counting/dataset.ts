import { z } from 'zod';
import { type Random, randomInt, seededRandom } from '../../util/random';
import { parseRows, readCsv } from '../dataset';
import type { Sample } from '../task';
import type { KeywordCountingProblem } from './index';

/** A cell holding a list of names as the reference writes it: `[Peru, Chile]`, or Python-style `['Peru', 'Chile']`. */
const nameListCell = z.string().transform((s, ctx) => {
  const body = /^\[(.*)\]$/s.exec(s.trim())?.[1];
  const names = body?.trim()
    ? body.split(',').map((n) =>
        n
          .trim()
          .replace(/^(['"])(.*)\1$/, '$2')
          .trim(),
      )
    : [];
  if (body === undefined || names.some((n) => n === '')) {
    ctx.addIssue({ code: 'custom', message: `expected a list of country names like "[Peru, Chile]", got "${s.slice(0, 40)}"` });
    return z.NEVER;
  }
  return names;
});

const Row = z.object({
  ID: z.string().min(1, 'expected a sample id'),
  Text: z.string().min(1, 'expected the text to count in'),
  Countries: nameListCell,
});

/** The reference format: columns ID, Text, Countries (occurrences in order, with repeats), Sentences, Characters. */
export function parseKeywordCountingCsv(csv: string): Sample<KeywordCountingProblem>[] {
  return parseRows(readCsv(csv), Row, 'keyword counting dataset').map((row) => ({
    id: row.ID,
    problem: { text: row.Text, countries: row.Countries },
  }));
}

/** Countries the generator names: unambiguous as words, none contained in another. */
export const GENERATOR_COUNTRIES = [
  'Argentina',
  'Australia',
  'Austria',
  'Bolivia',
  'Brazil',
  'Canada',
  'Chile',
  'Colombia',
  'Costa Rica',
  'Croatia',
  'Denmark',
  'Ecuador',
  'Egypt',
  'Ethiopia',
  'Finland',
  'France',
  'Germany',
  'Ghana',
  'Greece',
  'Iceland',
  'India',
  'Indonesia',
  'Ireland',
  'Italy',
  'Japan',
  'Kenya',
  'Mexico',
  'Mongolia',
  'Morocco',
  'Nepal',
  'New Zealand',
  'Nigeria',
  'Norway',
  'Peru',
  'Poland',
  'Portugal',
  'Senegal',
  'South Africa',
  'South Korea',
  'Spain',
  'Sri Lanka',
  'Sweden',
  'Switzerland',
  'Tanzania',
  'Thailand',
  'United States',
  'Uruguay',
  'Vietnam',
] as const;

/** Sentence templates: `@` is a country, `~` repeats the country named just before. */
const MENTIONING = [
  'My aunt spent a whole summer in @ before she moved on to @.',
  'Trade between @ and @ has grown every year since the new port opened.',
  'The museum shows textiles woven in @, @ and @.',
  'Nobody at the dinner had been to @, yet everyone had an opinion about the food of ~.',
  'The coach was born in @, trained in @ and still speaks fondly of ~.',
  'A documentary about the railways of @ reminded him of his own trip through ~.',
  'Her favourite coffee beans come from @, although the tea from @ is a close second.',
  'Students from @ and @ shared a flat during the exchange year.',
  'The orchestra toured @, then @, and finished in @.',
  'Few people know that @ exports more flowers than @.',
  'The old map still showed the border between @ and @ as a dotted line.',
  'When the team from @ won, fans in ~ celebrated until morning.',
] as const;

const PLAIN = [
  'It rained for most of the week, so they stayed indoors and played cards.',
  'The conversation then drifted to books, gardens and the price of bread.',
  'Everyone agreed that the long flights had been worth it.',
  'By evening the streets were quiet again.',
] as const;

function fill(template: string, pick: (avoid: readonly string[]) => string): { sentence: string; countries: string[] } {
  const countries: string[] = [];
  const sentence = template.replace(/[@~]/g, (slot) => {
    const name = slot === '~' ? countries.at(-1)! : pick(countries);
    countries.push(name);
    return name;
  });
  return { sentence, countries };
}

/**
 * A reproducible text of `size` sentences: some sentences name no country, some several, and the
 * text keeps returning to a small cast of countries so that counts above 1 are common.
 */
export function generateKeywordCountingProblem(size: number, seed: number): KeywordCountingProblem {
  if (!Number.isInteger(size) || size < 1) throw new Error(`a keyword counting text needs at least 1 sentence, got ${size}`);
  const random: Random = seededRandom(seed);
  const cast = Array.from({ length: 4 + Math.ceil(size / 3) }, () => GENERATOR_COUNTRIES[randomInt(random, GENERATOR_COUNTRIES.length)]!);
  // A few tries for a country the sentence has not named yet ("trade between Peru and Peru" reads oddly).
  const pick = (avoid: readonly string[]) => {
    let name = cast[randomInt(random, cast.length)]!;
    for (let i = 0; i < 4 && avoid.includes(name); i++) name = cast[randomInt(random, cast.length)]!;
    return name;
  };
  const sentences: string[] = [];
  const countries: string[] = [];
  for (let i = 0; i < size; i++) {
    if (random() < 0.2) {
      sentences.push(PLAIN[randomInt(random, PLAIN.length)]!);
      continue;
    }
    const filled = fill(MENTIONING[randomInt(random, MENTIONING.length)]!, pick);
    sentences.push(filled.sentence);
    countries.push(...filled.countries);
  }
  return { text: sentences.join(' '), countries };
}
