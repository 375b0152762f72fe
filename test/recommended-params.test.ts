import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BuiltInModel, LOCAL_MODELS } from '../src/localllm/models';
import { recommendedParams, recommendedScheme } from '../src/localllm/recommended';
import { TASKS } from '../src/tasks/registry';
import { configIssues } from '../src/tune/space';
import { got } from './support/cli';
import { ndaSamples } from './support/documents';

const QWEN: BuiltInModel = LOCAL_MODELS['qwen2.5-coder-1.5b'];
const MODELS: BuiltInModel[] = Object.values(LOCAL_MODELS);

describe("a built-in model's recommended scheme parameters (decision 89)", () => {
  it('are parameters its tasks’ schemes take, with values they accept', () => {
    for (const model of MODELS) {
      for (const r of model.recommended ?? []) {
        const task = TASKS[r.task];
        expect(task, `${model.name}: task ${r.task}`).toBeDefined();
        for (const scheme of r.schemes ?? Object.keys(task!.schemes)) {
          expect(Object.hasOwn(task!.schemes, scheme), `${model.name}: ${r.task} ${scheme}`).toBe(true);
          expect(configIssues(task!.tunables?.[scheme]?.(32) ?? {}, r.params, 'params'), `${model.name}: ${r.task} ${scheme}`).toEqual([]);
        }
      }
    }
  });

  it('apply to their task and schemes only, and a parameter the user gave wins', () => {
    expect(recommendedParams(QWEN, 'doc-merge', 'got').params).toEqual({ sections: 'always' });
    expect(recommendedParams(QWEN, 'sorting', 'got').params).toEqual({ split: 'engine' });
    expect(recommendedParams(QWEN, 'sorting', 'io')).toEqual({ params: {}, why: [] });
    expect(recommendedParams(QWEN, 'keyword-counting', 'got8')).toEqual({ params: {}, why: [] });
    expect(recommendedParams(QWEN, 'doc-merge', 'io', { sections: 'when-needed' })).toEqual({ params: {}, why: [] });
    expect(recommendedParams(MODELS.find((m) => m.name === 'smollm2-135m')!, 'doc-merge', 'io').params).toEqual({});
    expect(recommendedParams(QWEN, 'doc-merge', 'tot').why[0]).toMatch(/^--param sections=always: .*decision 87/);
  });
});

describe('got run on a built-in model uses its recommendations and says so', () => {
  const dir = mkdtempSync(join(tmpdir(), 'got-recommended-'));
  const problem = join(dir, 'ndas.json');
  writeFileSync(problem, JSON.stringify({ documents: ndaSamples()[0] }));
  const dryRun = async (args: string[]) => {
    const out = await got(['run', '--llm', 'local', '--local-model', 'qwen2.5-coder-1.5b', '--dry-run', ...args], { GOT_STATE_DIR: dir });
    expect(out.code, out.stderr).toBe(0);
    return { request: JSON.parse(out.stdout), stderr: out.stderr };
  };

  it('adds the parameter to the request it would send, and names it and why', async () => {
    const { request, stderr } = await dryRun(['--task', 'doc-merge', '--scheme', 'io', '--problem', problem]);
    expect(request.scheme).toEqual({ name: 'io', params: { sections: 'always' } });
    expect(stderr).toMatch(
      /Recommended for qwen2\.5-coder-1\.5b, so used: --param sections=always: .*Give the parameter to choose otherwise/,
    );
  });

  it('keeps the parameter the user gave, and adds nothing where nothing is recommended', async () => {
    const given = await dryRun(['--task', 'doc-merge', '--scheme', 'io', '--problem', problem, '--param', 'sections=when-needed']);
    expect(given.request.scheme.params).toEqual({ sections: 'when-needed' });
    expect(given.stderr).not.toMatch(/Recommended/);
    const io = await dryRun(['--task', 'sorting', '--scheme', 'io', '--size', '8']);
    expect(io.request.scheme).toEqual({ name: 'io' });
    const smol = await got(['run', '--llm', 'local', '--task', 'doc-merge', '--scheme', 'io', '--problem', problem, '--dry-run'], {
      GOT_STATE_DIR: dir,
    });
    expect(JSON.parse(smol.stdout).scheme).toEqual({ name: 'io' });
  });

  it('merges clause by clause on Qwen-1.5B when no scheme is named, says so, and keeps a named scheme (decision 91)', async () => {
    const chosen = await dryRun(['--task', 'doc-merge', '--problem', problem]);
    expect(chosen.request.scheme).toEqual({ name: 'clauses' });
    expect(chosen.stderr).toMatch(
      /Recommended for qwen2\.5-coder-1\.5b, so used: --scheme clauses: .*decision 91.*Give --scheme to choose otherwise/,
    );
    const named = await dryRun(['--task', 'doc-merge', '--scheme', 'got', '--problem', problem]);
    expect(named.request.scheme).toEqual({ name: 'got', params: { sections: 'always' } });
    expect(named.stderr).not.toMatch(/--scheme clauses/);
    // On an endpoint the paper's default stays.
    const endpoint = await got(['run', '--llm', 'endpoint', '--task', 'doc-merge', '--problem', problem, '--dry-run'], {
      GOT_STATE_DIR: dir,
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    expect(endpoint.code, endpoint.stderr).toBe(0);
    expect(JSON.parse(endpoint.stdout).scheme.name).toBe('got');
    expect(recommendedScheme(QWEN, 'sorting')).toBeUndefined();
    for (const model of MODELS)
      for (const r of model.recommendedSchemes ?? []) expect(Object.keys(TASKS[r.task]!.schemes)).toContain(r.scheme);
  });
});
