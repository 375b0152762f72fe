import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { sortingTask } from '../src/tasks/sorting';
import type { StudyResult } from '../src/tune/results';
import { got } from './support/cli';

const dir = mkdtempSync(join(tmpdir(), 'got-tune-cli-'));
// Nothing may be contacted by a refused study: a server or LLM call would fail with exit code 3, not 2.
const OFFLINE = { TEMPORAL_ADDRESS: '127.0.0.1:1', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' };

describe('got tune', () => {
  it.each([
    ['a scheme with nothing to tune', ['--scheme', 'io'], /source\.scheme: io has no tunable parameters/],
    ['no scheme and no GoO', [], /--scheme: name the scheme to tune/],
    ['one sample', ['--scheme', 'got', '--samples', '1'], /samples: a study needs at least 2 samples/],
    ['a stop rule that cannot see a spread', ['--scheme', 'got', '--min-samples', '1'], /stop\.minSamples/],
  ])('refuses %s before anything starts (exit code 2)', async (_, args, message) => {
    const { code, stderr } = await got(['tune', '--task', 'sorting', '--size', '32', ...args], OFFLINE);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('refuses a GoO file whose tunable section points at nothing', async () => {
    const goo = join(dir, 'bad-tunable.json');
    writeFileSync(
      goo,
      JSON.stringify({ ...sortingTask.schemes.got!({ size: 32 }), tunable: { k: { int: [1, 3], at: ['/operations/99/k'] } } }),
    );
    const { code, stderr } = await got(['tune', '--goo', goo, '--size', '32'], OFFLINE);
    expect(code).toBe(2);
    expect(stderr).toMatch(/tunable\.k\.at: nothing in the GoO at \/operations\/99\/k/);
  });

  it('runs a study to its end, writes its table, figure and best GoO, and joins the same study when run again', async () => {
    const out = join(dir, 'study');
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), GOT_CACHE_DIR: join(dir, 'cache') };
    const args = ['tune', '--task', 'sorting', '--scheme', 'got', '--size', '32', '--samples', '4', '--trials', '3'];
    const first = await got([...args, '--max-cost-per-sample', '0.05', '--out', out, '--task-queue', `tune-cli-${Date.now()}`], env);
    expect(first.stderr).toMatch(/trial 0: sortBranches=5 mergeBranches=10 .*→ score/);
    expect(first.code, first.stderr).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'trials.json'), 'utf8')) as StudyResult;
    expect(result.trials).toHaveLength(3);
    expect(result.best).toBeDefined();
    expect(readFileSync(join(out, 'trials.csv'), 'utf8').trim().split('\n')).toHaveLength(4);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/\| trial \| sortBranches \| mergeBranches .*\n.*\n\| 0 \| 5 \| 10 /);
    expect(first.stdout).toMatch(/Best feasible configuration \(limit \$0\.0500 per sample\): trial \d/);
    expect(readFileSync(join(out, 'pareto.png')).subarray(1, 4).toString()).toBe('PNG');
    expect(readFileSync(join(out, 'pareto.svg'), 'utf8')).toMatch(/^<svg/);
    expect(JSON.parse(readFileSync(join(out, 'best-config.json'), 'utf8'))).toEqual(result.trials[result.best!]!.config);

    // The best configuration as a GoO file: `got run --goo` takes it.
    const dry = await got(['run', '--task', 'sorting', '--size', '32', '--goo', join(out, 'best-goo.json'), '--dry-run'], OFFLINE);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).goo).toEqual(JSON.parse(readFileSync(join(out, 'best-goo.json'), 'utf8')));

    // The same command again: the study is found by the id kept in the folder, and nothing runs again.
    const again = await got(
      [...args, '--max-cost-per-sample', '0.05', '--out', out, '--task-queue', `tune-cli-${Date.now()}`, '--json'],
      env,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(result);
  }, 180_000);
});
