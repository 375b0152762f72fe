import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { reviewMerge } from '../src/documents/review';
import { docMergeTask } from '../src/tasks/doc-merge';
import { alignClauses } from '../src/tasks/doc-merge/clause-groups/align';
import { type Harness, startHarness } from './support/harness';

/**
 * The clauses scheme (decision 91) run by the Controller on the simulated LLM: the engine's forEach
 * machinery grows one part per open clause group, passes same-saying groups through without a call,
 * and joins every group once.
 */
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ llm: { latencyMs: 5 } });
});
afterAll(async () => h?.close());

const problem = docMergeTask.generateProblem(4, 3) as { documents: string[] };

describe('the clauses scheme in the engine', () => {
  it('asks the model only about groups whose clauses differ, and the merge has every group once', async () => {
    const { groups } = alignClauses(problem.documents);
    const open = groups.filter((g) => !g.same).length;
    expect(open).toBeGreaterThan(0);
    expect(open).toBeLessThan(groups.length);
    const goo = docMergeTask.schemes.clauses!({ size: problem.documents.length, problem });
    h.llm.resetStats();
    const result = await resultOf(
      await startRun(
        h.client,
        { task: 'doc-merge', problem, goo, labels: { scheme: 'clauses', size: 4, sample: 3 } },
        { taskQueue: h.taskQueue },
      ),
    );
    expect(result.status).toBe('answered');
    const { grs } = result;
    // One merge step per open group, none for the groups born merged.
    const merges = grs.operations.filter((o) => /^merge\[\d+\]\.merge$/.test(o.id));
    expect(merges).toHaveLength(open);
    const mergeCalls = grs.calls.filter((c) => c.operationId && /^merge\[\d+\]\.merge$/.test(c.operationId));
    expect(mergeCalls.length).toBeGreaterThanOrEqual(open);
    const merged = result.best!.state.merged as string;
    for (const g of groups.filter((g) => g.same)) expect(merged.split(g.members[0]!.text).length - 1, g.members[0]!.text).toBe(1);
    const review = reviewMerge(problem, merged);
    expect(review.retention!.reduce((n, r) => n + r.kept, 0) / review.retention!.reduce((n, r) => n + r.clauses, 0)).toBeGreaterThan(0.6);
  });
});
