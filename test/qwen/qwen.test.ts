import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localLlmSettings } from '../../src/cli/llm-source';
import { resultOf, startRun } from '../../src/client/runs';
import { ensureLocalModel, LOCAL_MODEL_ENV } from '../../src/localllm/model';
import { builtInModel } from '../../src/localllm/models';
import { type LocalLlm, startLocalLlm } from '../../src/localllm/server';
import type { RunRequestInput } from '../../src/run/request';
import { TASKS } from '../../src/tasks/registry';
import { ndaSamples } from '../support/documents';
import { type Harness, startHarness } from '../support/harness';

/**
 * The opt-in tier on Qwen2.5-Coder-1.5B (`npm run test:qwen`): what a capable model must do in the
 * engine, asserted on quality, not just on the machinery. Greedy decoding (temperature 0, a fixed
 * seed) keeps the answers the same from run to run on one build of llama.cpp; the bars leave room
 * for a different CPU's arithmetic.
 */
const QWEN = builtInModel('qwen2.5-coder-1.5b');
let llm: LocalLlm;
let h: Harness;

beforeAll(async () => {
  const modelPath = await ensureLocalModel({
    model: QWEN,
    env: { ...process.env, [LOCAL_MODEL_ENV]: '' },
    log: (line) => console.log(line),
  });
  llm = await startLocalLlm({ modelPath, port: 0, contextSize: QWEN.contextSize });
  h = await startHarness({ endpoint: () => llm.baseURL, stream: true });
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
});

function request(task: string, scheme: string, problem: unknown, size: number, maxTokens: number): RunRequestInput {
  return {
    task,
    problem: problem as RunRequestInput['problem'],
    goo: TASKS[task]!.schemes[scheme]!({ size, problem, contextTokens: QWEN.contextSize }),
    llm: { ...localLlmSettings('qwen2.5-coder-1.5b'), model: llm.model, maxTokens, temperature: 0 },
    seed: 7,
    labels: { scheme, size, sample: 1 },
  };
}

const run = async (r: RunRequestInput) => resultOf(await startRun(h.client, r, { taskQueue: h.taskQueue }));

describe('Qwen2.5-Coder-1.5B in the engine', () => {
  it('sorts lists of 8 numbers with IO', async () => {
    const sorting = TASKS.sorting!;
    for (const seed of [1, 2, 3]) {
      const problem = sorting.generateProblem(8, seed);
      const result = await run(request('sorting', 'io', problem, 8, 96));
      expect(result.status).toBe('answered');
      expect(result.best?.score, `list ${seed}: ${JSON.stringify(result.best?.state)}`).toBe(0);
    }
  }, 600_000);

  it('sorts 16 numbers with GoT to at most 2 errors', async () => {
    const problem = TASKS.sorting!.generateProblem(16, 4);
    const result = await run(request('sorting', 'got', problem, 16, 160));
    expect(result.status).toBe('answered');
    expect(result.best?.score).toBeLessThanOrEqual(2);
  }, 1_200_000);

  it("merges the paper's first four NDAs with IO, every clause traced to a source", async () => {
    const documents = ndaSamples()[0]!;
    const result = await run(request('doc-merge', 'io', { documents }, documents.length, 1536));
    expect(result.status).toBe('answered');
    const review = result.grs.review;
    expect(review).toBeDefined();
    expect(review!.counts.clauses).toBeGreaterThan(10);
    // Qwen copies clauses from the documents: nearly all of them must be found in a source.
    expect(review!.counts.supported / review!.counts.clauses).toBeGreaterThanOrEqual(0.9);
  }, 1_800_000);
});
