import { describe, expect, it } from 'vitest';
import { validateGoO } from '../src/goo/validate';
import { recognise } from '../src/simllm/responders';
import { answerProblem, evaluate, solvable, solve } from '../src/tasks/game-of-24/arithmetic';
import { game24Csv, generateGame24Problem, parseGame24Csv } from '../src/tasks/game-of-24/dataset';
import { type Game24State, game24Task } from '../src/tasks/game-of-24/index';
import { readExpression, readJudgement, readSteps } from '../src/tasks/game-of-24/parse';
import { TASKS } from '../src/tasks/registry';
import { gooFor, spaceOf } from '../src/tune/configure';
import { defaultsOf } from '../src/tune/space';
import { seededRandom } from '../src/util/random';

describe('Game of 24 arithmetic', () => {
  it('evaluates with precedence, parentheses and exact fractions', () => {
    expect(evaluate('2 + 3 * 4').value).toEqual({ n: 14, d: 1 });
    expect(evaluate('(2 + 3) * 4').value).toEqual({ n: 20, d: 1 });
    expect(evaluate('8 / (3 - 8 / 3)')).toEqual({ value: { n: 24, d: 1 }, numbers: [8, 3, 8, 3] });
    expect(() => evaluate('2 + * 3')).toThrow(/unexpected "\*"/);
    expect(() => evaluate('4 / (2 - 2)')).toThrow(/division by zero/);
  });

  it('finds a solution when there is one, and none when there is not', () => {
    for (const puzzle of [
      [4, 4, 6, 8],
      [3, 3, 8, 8],
      [1, 5, 5, 5],
    ]) {
      const expression = solve(puzzle)!;
      expect(answerProblem(expression, puzzle), `${puzzle}: ${expression}`).toBeUndefined();
    }
    expect(solvable([1, 1, 1, 1])).toBe(false);
    expect(solvable([24])).toBe(true);
    expect(solvable([23])).toBe(false);
  });

  it('checks a final answer: each number once, nothing else, equal to 24', () => {
    expect(answerProblem('(4 + 8) * (6 - 4)', [4, 4, 6, 8])).toBeUndefined();
    expect(answerProblem('(4 + 8) * 2', [4, 4, 6, 8])).toMatch(/uses 2 4 8, not 4 4 6 8/);
    expect(answerProblem('(4 + 8) * (6 - 4) + 4', [4, 4, 6, 8])).toMatch(/uses 4 4 4 6 8/);
    expect(answerProblem('4 * 8 - 6 + 4', [4, 4, 6, 8])).toMatch(/equals 30, not 24/);
    expect(answerProblem('4 8 6 4', [4, 4, 6, 8])).toMatch(/unexpected/);
  });
});

describe('Game of 24 dataset', () => {
  it('is generated deterministically from seeds, every puzzle solvable, and read back from its CSV', () => {
    const csv = game24Csv(25);
    expect(game24Csv(25)).toBe(csv);
    const samples = parseGame24Csv(csv);
    expect(samples.map((s) => s.id)).toEqual(Array.from({ length: 25 }, (_, i) => String(i)));
    for (const s of samples) {
      expect(s.problem.numbers).toHaveLength(4);
      expect(solvable(s.problem.numbers)).toBe(true);
    }
    expect(samples[3]!.problem).toEqual(generateGame24Problem(3));
    expect(new Set(samples.map((s) => s.problem.numbers.join(' '))).size).toBeGreaterThan(20);
  });

  it('names the row and column of a bad puzzle', () => {
    expect(() => parseGame24Csv('ID,Puzzle\n0,1 2 3 4\n1,1 2 3\n2,1 2 3 99\n')).toThrow(
      /row 2 column Puzzle: expected four whole numbers.*\n.*row 3/s,
    );
  });
});

describe('Game of 24 answers', () => {
  it('reads well-formed steps from the numbers left, at most `count`, keeping wrong arithmetic as the model said it', () => {
    const text = [
      '3 + 5 = 8 (left: 8 9 12)',
      'noise',
      '12 / 3 = 5 (left: 5 5 9)',
      '7 * 2 = 14 (left: 5 9 14)',
      '9 - 5 = 4 (left: 3 4 99)',
      '5 * 9 = 45 (left: 3 12 45)',
    ].join('\n');
    const steps = readSteps(text, [3, 5, 9, 12], 3);
    // 7 and 2 are not there; the fourth line's numbers left do not add up; the cap stops at three.
    expect(steps.map((s) => s.left)).toEqual([
      [8, 9, 12],
      [5, 5, 9],
      [3, 12, 45],
    ]);
    expect(readSteps(text, [3, 5, 9, 12], 1)).toHaveLength(1);
  });

  it('reads the last judgement word and the expression of the last Answer line', () => {
    expect(readJudgement('sure? 10 + 14 = 24\nlikely\nimpossible')).toBe('impossible');
    expect(readJudgement('no idea')).toBeUndefined();
    expect(readExpression('Answer: 1 + 2 = 3\nAnswer: (4 + 8) * (6 - 4) = 24')).toBe('(4 + 8) * (6 - 4)');
    expect(readExpression('Answer: no expression works')).toBeUndefined();
  });
});

describe('the Game of 24 task', () => {
  const problem = { numbers: [4, 4, 6, 8] };
  const root = game24Task.rootState(problem) as Game24State;

  it('is registered, declares its tunables, and its ToT GoO values each proposal in a forEach', () => {
    expect(TASKS['game-of-24']).toBe(game24Task);
    const space = spaceOf(game24Task, { scheme: 'tot' }, 4);
    expect(defaultsOf(space)).toEqual({ proposals: 8, valueSamples1: 3, valueSamples2: 3, valueSamples3: 3, keepTop1: 5, keepTop2: 5 });
    const goo = gooFor(game24Task, { scheme: 'tot' }, { size: 4, problem, params: { proposals: 5, keepTop1: 2 } });
    validateGoO(goo);
    const forEach = goo.operations.filter((o) => o.type === 'forEach');
    expect(forEach.map((o) => o.id)).toEqual(['value-1', 'value-2', 'value-3']);
    // A level's forEach takes at most the proposals of every thought kept before it.
    expect(forEach.map((o) => ('maxParts' in o ? o.maxParts : 0))).toEqual([5, 10, 25]);
    expect(forEach[0]!.type === 'forEach' && forEach[0]!.body).toEqual([
      { type: 'score', scorer: { kind: 'llm', prompt: 'value', samples: 3 }, id: 'value', inputs: [] },
    ]);
    validateGoO(game24Task.schemes.io!({ size: 4 }));
  });

  it('plays a whole game with the simulated LLM: proposals, values, the written expression, the check', () => {
    const random = seededRandom(7);
    const ask = (prompt: string, params: Record<string, unknown>, state: Game24State) => {
      const request = { prompt, params, thoughts: [state], problem };
      const text = recognise(game24Task.buildPrompt(request)[0]!.content)!.answer(random);
      return game24Task.parseResponse(request, text);
    };
    // Follow the proposals the simulator's judge likes, as the scheme does, until one number is left.
    let state = root;
    for (let level = 0; level < 3; level++) {
      const proposals = ask('propose', { count: 8 }, state).filter((t) => t.valid);
      expect(proposals.length).toBeGreaterThan(0);
      expect(proposals.length).toBeLessThanOrEqual(8);
      for (const p of proposals) expect((p.state as Game24State).left).toHaveLength(3 - level);
      const judged = proposals.map((p) => {
        const judge = game24Task.llmScorers!.value!;
        const text = recognise(judge.buildPrompt(p.state, problem)[0]!.content)!.answer(random);
        // The simulator, like a model, now and then answers off format: then the judge's unreadable score.
        const rating = judge.parseRatings(text);
        return {
          state: p.state as Game24State,
          value: rating ? judge.combine([rating], { state: p.state, problem }) : judge.unparseableScore,
        };
      });
      state = judged.sort((a, b) => b.value - a.value)[0]!.state;
    }
    expect(state.steps).toHaveLength(3);
    const [answer] = ask('answer', {}, state);
    expect(answer!.valid).toBe(true);
    const expression = (answer!.state as Game24State).expression!;
    // The check agrees with exact arithmetic, whatever the simulator wrote.
    expect(game24Task.groundTruth!(answer!.state, problem)).toBe(answerProblem(expression, problem.numbers) === undefined);
    expect(game24Task.score!(answer!.state, problem)).toBe(game24Task.groundTruth!(answer!.state, problem) ? 1 : 0);
    expect(game24Task.answerText(answer!.state)).toBe(`${expression} = 24`);
  });

  it('refuses a propose count out of range before a run', () => {
    expect(game24Task.checkParams!('propose', { count: 0 }, problem)).toEqual([expect.stringMatching(/count: expected a whole number/)]);
    expect(game24Task.checkParams!('propose', { count: 6 }, problem)).toEqual([]);
  });
});
