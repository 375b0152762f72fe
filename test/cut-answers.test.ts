import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createActivities, type GotActivities, type LlmStep, type LlmStepResult } from '../activities';
import type { ThoughtState } from '../src/grs/types';
import { LlmClient } from '../src/llm/client';
import { LlmSettings } from '../src/run/request';
import { closedBeforeCut } from '../src/tasks/answer-text';
import { keywordCountingTask } from '../src/tasks/keyword-counting';
import { setIntersectionTask } from '../src/tasks/set-intersection';
import { sortingTask } from '../src/tasks/sorting';
import { type ScriptedLlm, startScriptedLlm } from './support/scripted-llm';

// Decision 66: an answer cut at max tokens counts when the structure it was read from closed before the cut.

const NDA =
  'The Recipient shall keep all Confidential Information secret for five years. Disclosure to third parties requires written consent.';

interface Case {
  name: string;
  task: string;
  prompt: string;
  thoughts: ThoughtState[];
  problem: unknown;
  /** Cut after the structure closed: usable. */
  closed: string;
  /** Cut inside the structure (or inside a later one): not usable. */
  broken: string[];
}

const CASES: Case[] = [
  {
    name: 'sorting: a list closed before the chatter was cut',
    task: 'sorting',
    prompt: 'sort',
    thoughts: [sortingTask.rootState({ list: [3, 1, 2] })],
    problem: { list: [3, 1, 2] },
    closed: 'Output: [1, 2, 3]\n\nI sorted the list by comparing each pair of numbers and moving the smal',
    broken: ['Output: [1, 2, 3, 4, 5', 'Output: 1, 2, 3', 'Sublists: [1, 3], [2]\nNow merging: [1, 2'],
  },
  {
    name: 'sorting: a JSON answer closed before the cut',
    task: 'sorting',
    prompt: 'sortCot',
    thoughts: [sortingTask.rootState({ list: [3, 1, 2] })],
    problem: { list: [3, 1, 2] },
    closed: '{"reasoning": "compare [3, 1] then 2", "output": [1, 2, 3]}\n',
    broken: ['{"reasoning": "compare [3, 1] then 2", "output": [1, 2'],
  },
  {
    name: 'sorting: a split whose object closed',
    task: 'sorting',
    prompt: 'split',
    thoughts: [sortingTask.rootState({ list: [3, 1, 2, 0] })],
    problem: { list: [3, 1, 2, 0] },
    closed: '{"List 1": [3, 1], "List 2": [2, 0]}\nEach list keeps the or',
    broken: ['{"List 1": [3, 1], "List 2": [2, 0]', '{"List 1": [3, 1], "List 2": [2'],
  },
  {
    name: 'set-intersection',
    task: 'set-intersection',
    prompt: 'intersect',
    thoughts: [setIntersectionTask.rootState({ set1: [1, 2, 3], set2: [3, 4, 1] })],
    problem: { set1: [1, 2, 3], set2: [3, 4, 1] },
    closed: '[3, 1]\nThese are the numbers found in both sets, because 3 appears in',
    broken: ['Output: [3, 1, 4', 'The numbers in both are 3, 1'],
  },
  {
    name: 'keyword-counting',
    task: 'keyword-counting',
    prompt: 'count',
    thoughts: [keywordCountingTask.rootState({ text: 'Peru and Chile. Peru again.', countries: ['Peru', 'Chile', 'Peru'] })],
    problem: { text: 'Peru and Chile. Peru again.', countries: ['Peru', 'Chile', 'Peru'] },
    closed: 'Output: {"Peru": 2, "Chile": 1}\nPeru is mentioned twice: once in the first sent',
    broken: ['Output: {"Peru": 2, "Chile": 1', 'Peru: 2\nChile: 1', 'Step 1: {"Peru": 1}\nStep 2: {"Peru": 2, "Chi'],
  },
  {
    name: 'doc-merge',
    task: 'doc-merge',
    prompt: 'merge',
    thoughts: [{ documents: [0, 1] }],
    problem: { documents: [NDA, NDA] },
    closed: `<Merged>\n${NDA}\n</Merged>\nBoth NDAs said the sa`,
    broken: [`<Merged>\n${NDA.slice(0, 60)}`, `<Merged>${NDA}</Merged>\nA shorter version:\n<Merged>The Recip`],
  },
];

describe('answers cut at max tokens', () => {
  let llm: ScriptedLlm;
  let activities: GotActivities;
  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(() => llm.close());
  beforeEach(() => {
    activities = createActivities({ llm: new LlmClient({ baseURL: llm.baseURL, apiKey: 'k', supportsN: true }) });
  });
  const call = (s: LlmStep) =>
    new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR') }).run<[LlmStep], LlmStepResult, GotActivities['callLlm']>(
      activities.callLlm,
      s,
    );

  it.each(CASES)('$name', async ({ task, prompt, thoughts, problem, closed, broken }) => {
    const answers = [closed, ...broken];
    llm.reply({ choices: answers.map((content) => ({ content, finishReason: 'length' as const })) });
    // The same closed answer, not cut, reads as the same thought.
    llm.reply({ choices: [{ content: closed }] });
    const step: LlmStep = {
      task,
      purpose: 'generate',
      prompt,
      params: {},
      thoughts,
      problem,
      samples: answers.length,
      llm: LlmSettings.parse({}),
      seed: 1,
    };
    const [usable, ...cut] = (await call(step)).answers.map((a) => a[0]!);
    const whole = (await call({ ...step, samples: 1 })).answers[0]![0]!;
    expect(usable).toEqual(whole);
    expect(usable!.valid).toBe(true);
    expect(usable).not.toHaveProperty('end');
    for (const [i, t] of cut.entries()) {
      expect(t.valid, broken[i]).toBe(false);
      expect(t.error, broken[i]).toMatch(/truncated at max tokens/);
    }
  });
});

describe('closedBeforeCut', () => {
  it('needs a closing mark, no bracket left open, and no tag opened after it', () => {
    expect(closedBeforeCut('[1, 2] and so', 6)).toBe(true);
    expect(closedBeforeCut('[1, 2] and [3', 6)).toBe(false);
    expect(closedBeforeCut('[1, 2] and [3] so', 6)).toBe(true);
    expect(closedBeforeCut('<A>x</A> then <A>y', 8)).toBe(false);
    expect(closedBeforeCut('[1, 2]', undefined)).toBe(false);
    expect(closedBeforeCut('[1, 2]', 7)).toBe(false);
    // A split's lists complete, its object not: the cut broke the structure they were read from.
    expect(closedBeforeCut('{"List 1": [1, 2], "List 2": [3]', 17)).toBe(false);
  });
});
