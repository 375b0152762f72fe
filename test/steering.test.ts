import { describe, expect, it } from 'vitest';
import { steerOf } from '../src/cli/commands/steer';
import { describeSteer } from '../src/steering/describe';
import { readSteer } from '../src/steering/read';
import { type SteerableRun, steeringRefusal } from '../src/steering/refusal';
import { SteerRequest } from '../src/steering/types';

const running: SteerableRun = {
  steerable: true,
  started: true,
  graphDone: false,
  paused: false,
  budget: { maxCostUsd: 1 },
  spent: { costUsd: 0.25, tokens: 5000 },
  budgetExhausted: false,
};

describe('a steer as the workflow reads it', () => {
  it('takes what the contract schema takes, trimmed', () => {
    const examples = [
      { action: 'pause', by: ' Ann ', reason: 'checking the fees' },
      { action: 'resume' },
      { action: 'budget', budget: { maxCostUsd: 2.5 } },
      { action: 'budget', budget: { maxTokens: 90000, maxCostUsd: 3 }, by: 'web review' },
    ];
    for (const e of examples) expect(readSteer(e)).toEqual({ steer: SteerRequest.parse(e) });
  });

  it('names the field that is wrong, as the schema refuses it too', () => {
    const bad: [unknown, RegExp][] = [
      [null, /expected \{ action/],
      [{ action: 'stop' }, /^action: expected "pause", "resume", "budget", "prune", "instruct" or "add", got "stop"/],
      [{ action: 'pause', budget: { maxCostUsd: 1 } }, /^budget: only the action "budget"/],
      [{ action: 'budget' }, /^budget: expected/],
      [{ action: 'budget', budget: {} }, /^budget: give maxCostUsd, maxTokens or both/],
      [{ action: 'budget', budget: { maxCostUsd: -1 } }, /^budget\.maxCostUsd:/],
      [{ action: 'budget', budget: { maxTokens: 1.5 } }, /^budget\.maxTokens:/],
      [{ action: 'budget', budget: { maxDollars: 1 } }, /^budget\.maxDollars: not a budget field/],
      [{ action: 'pause', who: 'Ann' }, /^who: not a field of a steer/],
      [{ action: 'pause', by: '' }, /^by: expected text/],
      [{ action: 'pause', reason: 'x'.repeat(2001) }, /^reason: expected text of 1 to 2000/],
    ];
    for (const [input, message] of bad) {
      const read = readSteer(input);
      expect('problem' in read && read.problem, JSON.stringify(input)).toMatch(message);
      expect(SteerRequest.safeParse(input).success, JSON.stringify(input)).toBe(false);
    }
  });
});

describe('whether a steer applies to the run as it stands', () => {
  it('pauses a running run once, and resumes only a paused one', () => {
    expect(steeringRefusal(running, { action: 'pause' })).toBeUndefined();
    expect(steeringRefusal({ ...running, paused: true }, { action: 'pause' })).toBe('the run is paused already');
    expect(steeringRefusal(running, { action: 'resume' })).toBe('the run is not paused');
    expect(steeringRefusal({ ...running, paused: true }, { action: 'resume' })).toBeUndefined();
  });

  it('takes a budget above what is spent, and refuses one at or below it', () => {
    expect(steeringRefusal(running, { action: 'budget', budget: { maxCostUsd: 0.5 } })).toBeUndefined();
    expect(steeringRefusal(running, { action: 'budget', budget: { maxCostUsd: 0.25 } })).toBe(
      'budget.maxCostUsd $0.25 is not above what the run has spent ($0.25)',
    );
    expect(steeringRefusal(running, { action: 'budget', budget: { maxTokens: 4000 } })).toBe(
      'budget.maxTokens 4000 is not above the tokens the run has used (5000)',
    );
    expect(steeringRefusal({ ...running, budgetExhausted: true }, { action: 'budget', budget: { maxCostUsd: 9 } })).toMatch(
      /spent already .* fork the run/,
    );
  });

  it('refuses every steer of a run that cannot obey it, not started, or done', () => {
    expect(steeringRefusal({ ...running, steerable: false }, { action: 'pause' })).toMatch(/without steering/);
    expect(steeringRefusal({ ...running, started: false }, { action: 'pause' })).toMatch(/still checking its request/);
    expect(steeringRefusal({ ...running, graphDone: true }, { action: 'resume' })).toMatch(/all its LLM calls/);
  });
});

describe('a steer in words and from the command line', () => {
  it('says what changed and who asked', () => {
    expect(describeSteer({ action: 'pause', by: 'Ann', reason: 'fees' })).toBe(
      'paused: no new LLM call starts until it is resumed by Ann (fees)',
    );
    expect(describeSteer({ action: 'budget', budget: { maxCostUsd: 2, maxTokens: 50000 } })).toBe('budget set to $2 and 50,000 tokens');
    expect(describeSteer({ action: 'resume', by: 'Ann' })).toBe('resumed by Ann');
  });

  it('builds the request from flags, naming the flag or argument at fault', () => {
    expect(steerOf('budget', { maxCost: '0.5', by: 'Ann', json: false })).toEqual({
      action: 'budget',
      budget: { maxCostUsd: 0.5 },
      by: 'Ann',
    });
    expect(() => steerOf('budget', { maxCost: 'lots', json: false })).toThrow(/--max-cost: expected a number/);
    expect(() => steerOf('halt', { json: false })).toThrow(/<action>/);
    expect(() => steerOf('pause', { maxTokens: '10', json: false })).toThrow(/only `got steer <id> budget` takes them/);
    expect(() => steerOf('budget', { json: false })).toThrow(/--max-cost\/--max-tokens: give maxCostUsd, maxTokens or both/);
  });
});
