import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ThoughtState } from '../src/grs/types';
import { compileParser } from '../src/tasks/declarative/parsers';
import { type Parser, Parser as ParserSchema } from '../src/tasks/declarative/schema';
import { docMergeTask } from '../src/tasks/doc-merge';
import { keywordCountingTask } from '../src/tasks/keyword-counting';
import { setIntersectionTask } from '../src/tasks/set-intersection';
import { sortingTask } from '../src/tasks/sorting';
import type { AnyTask, ParsedThought } from '../src/tasks/task';

/**
 * Every parser over its corpus of realistic answers (test/fixtures/answers/<task>.json): what real
 * models write around, before and after the answer the prompt asks for.
 */

interface Entry {
  name: string;
  style: string;
  source?: string;
  prompt?: string;
  params?: Record<string, unknown>;
  thoughts?: ThoughtState[];
  parser?: Parser;
  text: string | string[];
  expect: unknown;
  untagged?: boolean;
}

interface Corpus {
  task: string;
  problem?: unknown;
  entries: Entry[];
}

const INVALID = 'invalid';

const load = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/answers/${name}.json`, import.meta.url), 'utf8')) as Corpus;
const textOf = (e: Entry) => (Array.isArray(e.text) ? e.text.join('\n') : e.text);

/** The answer a task's thoughts hold, per prompt: what the corpus states as `expect`. */
const answerOf: Record<string, (prompt: string, out: ParsedThought[]) => unknown> = {
  sorting: (prompt, out) => (prompt === 'split' ? out.map((t) => t.state.list) : out[0]!.state.list),
  'set-intersection': (prompt, out) => (prompt === 'split' ? out.map((t) => t.state.given) : out[0]!.state.result),
  'keyword-counting': (prompt, out) => (prompt === 'split' ? out.map((t) => t.state.text) : out[0]!.state.counts),
  'doc-merge': (_prompt, out) => out[0]!.state.merged,
};

const tasks: Record<string, AnyTask> = {
  sorting: sortingTask,
  'set-intersection': setIntersectionTask,
  'keyword-counting': keywordCountingTask,
  'doc-merge': docMergeTask,
};

/** An invalid answer's error must say what was expected, not only that something failed. */
const SAYS_WHAT_WAS_EXPECTED = /expected|no |not |declined|only /i;

describe.each(Object.keys(tasks))('the %s answer corpus', (name) => {
  const corpus = load(name);
  const task = tasks[name]!;

  it('holds 15 to 40 answers, some of them invalid', () => {
    expect(corpus.entries.length).toBeGreaterThanOrEqual(15);
    expect(corpus.entries.length).toBeLessThanOrEqual(40);
    expect(corpus.entries.some((e) => e.expect === INVALID)).toBe(true);
  });

  it.each(corpus.entries.map((e) => [`${e.name} (${e.source ?? e.style})`, e] as const))('%s', (_label, entry) => {
    const text = textOf(entry);
    const prompt = entry.prompt ?? '';
    if (prompt === 'judge') {
      const ratings = task.llmScorers!.judge!.parseRatings(text);
      expect(ratings ?? INVALID).toEqual(entry.expect);
      return;
    }
    const thoughts = entry.thoughts ?? [task.rootState(corpus.problem)];
    const out = task.parseResponse({ prompt, params: entry.params ?? {}, thoughts, problem: corpus.problem }, text);
    if (entry.expect === INVALID) {
      expect(out).toHaveLength(1);
      expect(out[0]!.valid).toBe(false);
      expect(out[0]!.error).toMatch(SAYS_WHAT_WAS_EXPECTED);
      return;
    }
    expect(out.every((t) => t.valid)).toBe(true);
    expect(answerOf[name]!(prompt, out)).toEqual(entry.expect);
    if (name === 'doc-merge') expect(out[0]!.state.untagged).toBe(entry.untagged);
  });
});

describe('the declared-task answer corpus', () => {
  const corpus = load('declarative');

  it('holds 15 to 40 answers, some of them invalid', () => {
    expect(corpus.entries.length).toBeGreaterThanOrEqual(15);
    expect(corpus.entries.some((e) => e.expect === INVALID)).toBe(true);
  });

  it.each(corpus.entries.map((e) => [`${e.name} (${e.source ?? e.style})`, e] as const))('%s', (_label, entry) => {
    const parser = compileParser(ParserSchema.parse(entry.parser));
    const result = parser.parse(textOf(entry), entry.prompt === undefined ? {} : { prompt: entry.prompt });
    if (entry.expect === INVALID) {
      expect(result.ok).toBe(false);
      expect(result.ok ? '' : result.error).toMatch(SAYS_WHAT_WAS_EXPECTED);
    } else {
      expect(result).toEqual({ ok: true, value: entry.expect });
    }
  });
});
