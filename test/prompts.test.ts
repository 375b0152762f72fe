import { describe, expect, it } from 'vitest';
import { createTuneActivities } from '../activities/tune';
import { ValidationError } from '../src/goo/validate';
import { renderParts } from '../src/prompts/parts';
import { promptSearchIssues, promptSetFor, promptSpaceOf, schemeParamsOf } from '../src/prompts/search';
import { checkRun } from '../src/run/check';
import { keywordCountingTask } from '../src/tasks/keyword-counting';
import { resolveTask } from '../src/tasks/registry';
import { sortingTask } from '../src/tasks/sorting';
import { improvePrompt, mergePrompt, SORTING_LAYOUTS, sortPrompt } from '../src/tasks/sorting/prompts';
import { splitRows, splitSeed, TRAIN_SPLIT } from '../src/tune/data-split';
import { checkStudy } from '../src/tune/request';

const list = [5, 3, 9, 0, 1, 1, 8, 2];
const thought = (l: number[]) => ({ unsorted: list, list: l });
const userText = (task: ReturnType<typeof resolveTask>, prompt: string, thoughts = [thought(list)]) =>
  task.buildPrompt({ prompt, params: {}, thoughts })[0]!.content;

describe('prompt layouts', () => {
  it("render the task's own parts as the prompt the task always sent", () => {
    // The paper's prompts, the response cache's keys and the simulator depend on these texts.
    expect(sortPrompt(list)).toBe(
      `<Instruction> Put the numbers of the list below into ascending order. Answer with the sorted list only, nothing else. </Instruction>

<Examples>
Input: [3, 8, 1, 1, 0, 9, 4, 2, 7, 7, 5, 0, 6, 3, 2, 8]
Output: [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 7, 8, 8, 9]

Input: [9, 2, 6, 0, 4, 4, 1, 7, 3, 5, 8, 2, 6, 1, 0, 9]
Output: [0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 9, 9]
</Examples>

Input: [5, 3, 9, 0, 1, 1, 8, 2]`,
    );
    expect(mergePrompt([1, 4], [2, 3, 5])).toContain(
      'Combine the two ascending lists below (2 and 3 numbers) into one ascending list of 5 numbers',
    );
    expect(improvePrompt(list, [0, 1])).toContain('have exactly 8 numbers');
    expect(userText(sortingTask, 'sort')).toBe(sortPrompt(list));
  });

  it('leave out the approach and examples blocks a set empties', () => {
    const parts = { instruction: 'Do it.', format: '', approach: '', examples: [] };
    expect(renderParts(parts, 'Input: [1]')).toBe('<Instruction> Do it. </Instruction>\n\nInput: [1]');
  });
});

describe('a built-in task with a prompt set', () => {
  const prompted = resolveTask({
    id: 'sorting',
    prompts: { sort: { instruction: 'Sort these {{length}} digits carefully.', examples: [] }, merge: { format: 'Only the list.' } },
  });

  it('builds the reworded parts, variables filled, and keeps the rest', () => {
    const sort = userText(prompted, 'sort');
    expect(sort).toBe(
      '<Instruction> Sort these 8 digits carefully. Answer with the sorted list only, nothing else. </Instruction>\n\nInput: [5, 3, 9, 0, 1, 1, 8, 2]',
    );
    const merge = userText(prompted, 'merge', [thought([1, 4]), thought([2, 3, 5])]);
    expect(merge).toContain('into one ascending list of 5 numbers, the way merge sort does. Only the list. </Instruction>');
    expect(merge).toContain('<Approach>');
    // Prompts the set does not name are the task's own.
    expect(userText(prompted, 'improve')).toBe(userText(sortingTask, 'improve'));
    expect(prompted.id).toBe('sorting');
  });

  it('is accepted as a run request task, and refused naming the field when it does not hold', () => {
    const request = (task: unknown) => ({ task, problem: { list }, scheme: { name: 'io' } });
    expect(checkRun(request({ id: 'sorting', prompts: { sort: { format: 'List only.' } } })).task.id).toBe('sorting');
    const refused = (task: unknown) => {
      try {
        checkRun(request(task));
      } catch (e) {
        return (e as ValidationError).issues.map((i) => `${i.path}: ${i.message}`).join('\n');
      }
      throw new Error('accepted');
    };
    expect(refused({ id: 'sorting', prompts: { sort: { instruction: 'Sort {{size}} numbers.' } } })).toMatch(
      /task\.prompts\.sort\.instruction: no variable \{\{size\}\}; the "sort" prompt has \{\{length\}\}/,
    );
    expect(refused({ id: 'sorting', prompts: { split: { format: 'x' } } })).toMatch(
      /task\.prompts\.split: task "sorting" has no prompt "split" that can be reworded; it has sort, sortCot, merge, improve/,
    );
    expect(refused({ id: 'sorting', prompts: { sort: { instruction: 'x'.repeat(5000) } } })).toMatch(/task\.prompts\.sort\.instruction/);
    expect(refused({ id: 'sorting', prompts: { sort: { colour: 'red' } } })).toMatch(/task\.prompts\.sort/);
    expect(refused({ id: 'no-such-task', prompts: {} })).toMatch(/task: unknown task "no-such-task"/);
    expect(refused({ id: 'game-of-24', prompts: { propose: { format: 'x' } } })).toMatch(
      /task "game-of-24" has no prompts that can be reworded/,
    );
  });
});

describe("keyword counting's prompts", () => {
  const problem = keywordCountingTask.generateProblem(4, 3);
  const root = [keywordCountingTask.rootState(problem)];

  it('can be reworded, and draw their examples from solved training problems', () => {
    const layout = keywordCountingTask.promptLayouts!.count!;
    const example = layout.exampleFrom!(problem)!;
    expect(example.startsWith(`Input: ${problem.text}\nOutput: {`)).toBe(true);
    const prompted = resolveTask({
      id: 'keyword-counting',
      prompts: { count: { instruction: 'List every country.', examples: [example] } },
    });
    const text = prompted.buildPrompt({ prompt: 'count', params: {}, thoughts: root, problem })[0]!.content;
    expect(text.startsWith('<Instruction> List every country. Answer with a JSON object')).toBe(true);
    expect(text).toContain(`<Examples>\n${example}\n</Examples>`);
    expect(text.endsWith(`Input: ${problem.text}`)).toBe(true);
  });
});

describe('a study searching prompts', () => {
  const search = {
    sort: { instruction: ['Sort carefully.', 'Sort {{length}} numbers.'], examples: [[], ['Input: [2, 1]\nOutput: [1, 2]']] },
  };

  it('adds a choice per part with candidates, 0 keeping the part', () => {
    const space = promptSpaceOf(search);
    expect(Object.keys(space)).toEqual(['prompt.sort.instruction', 'prompt.sort.examples']);
    expect(space['prompt.sort.instruction']).toMatchObject({ kind: 'choice', values: [0, 1, 2], default: 0 });
  });

  it('turns a configuration into the prompt set it chooses, over a base set', () => {
    const config = { sortBranches: 3, 'prompt.sort.instruction': 2, 'prompt.sort.examples': 0 };
    expect(schemeParamsOf(config)).toEqual({ sortBranches: 3 });
    expect(promptSetFor({ merge: { format: 'x' } }, search, config)).toEqual({
      merge: { format: 'x' },
      sort: { instruction: 'Sort {{length}} numbers.' },
    });
    expect(promptSetFor(undefined, search, { 'prompt.sort.instruction': 0 })).toEqual({});
  });

  it("joins the scheme's parameters: a trial's GoO takes the numbers, its runs' task the prompts", async () => {
    const { trialGoOs } = createTuneActivities();
    const problem = sortingTask.generateProblem(32, 1_000_000);
    const trial = await trialGoOs({
      task: 'sorting',
      source: { scheme: 'got' },
      size: 32,
      params: { sortBranches: 2, 'prompt.sort.instruction': 1 },
      problems: [problem],
      promptSearch: search,
    });
    const sorts = trial.goos[0]!.operations.filter((op) => 'prompt' in op && op.prompt === 'sort');
    expect(sorts.length).toBeGreaterThan(0);
    expect(sorts.every((op) => 'k' in op && op.k === 2)).toBe(true);
    expect(trial.task).toEqual({ id: 'sorting', prompts: { sort: { instruction: 'Sort carefully.' } } });
    // A study without a prompt search gets no task back: its trials run the study's, as before.
    expect(
      (await trialGoOs({ task: 'sorting', source: { scheme: 'got' }, size: 32, params: {}, problems: [problem] })).task,
    ).toBeUndefined();
  });

  it('is checked before anything is spent: candidates must fit the prompt', () => {
    expect(promptSearchIssues(sortingTask, { sort: { instruction: ['ok', 'Sort {{n}}.'] } })).toEqual([
      { path: 'promptSearch.sort.instruction[1]', message: 'no variable {{n}}; the "sort" prompt has {{length}}' },
    ]);
    const samples = [0, 1].map((i) => ({ id: String(i), problem: sortingTask.generateProblem(16, i) }));
    const base = { task: 'sorting', size: 16, samples, trials: 2 };
    // IO has no parameters of its own; its prompts make a study.
    expect(Object.keys(checkStudy({ ...base, source: { scheme: 'io' }, promptSearch: search }).space)).toHaveLength(2);
    expect(() => checkStudy({ ...base, source: { scheme: 'io' } })).toThrow(
      /io has no tunable parameters \(and the study has no promptSearch\)/,
    );
    expect(() => checkStudy({ ...base, source: { scheme: 'io' }, promptSearch: { split: { format: ['x'] } } })).toThrow(ValidationError);
  });
});

describe('training and test splits', () => {
  it('never share an instance', () => {
    expect(splitRows(100, 'train')).toEqual({ first: 100 - TRAIN_SPLIT.rows, end: 100 });
    expect(splitRows(100, 'test')).toEqual({ first: 0, end: 100 - TRAIN_SPLIT.rows });
    expect(splitRows(10, 'test')).toEqual({ first: 0, end: 0 });
    const train = new Set(Array.from({ length: 500 }, (_, i) => splitSeed('train', i)));
    expect(Array.from({ length: 500 }, (_, i) => splitSeed('test', i)).some((s) => train.has(s))).toBe(false);
  });
});

it('every layout names only variables its build fills', () => {
  for (const [name, layout] of Object.entries(SORTING_LAYOUTS)) {
    const { values } = layout.build({ list, other: [1], unsorted: list });
    expect(Object.keys(values).sort(), name).toEqual(Object.keys(layout.variables).sort());
  }
});
