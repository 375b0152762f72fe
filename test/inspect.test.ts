import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderGrs } from '../src/cli/commands/inspect';
import { resultOf, startRun } from '../src/client/runs';
import { bestThought, volume } from '../src/grs/analysis';
import { toDot, toJson, toMermaid } from '../src/grs/export';
import { inspectRun, rebuildGrs } from '../src/inspect/rebuild';
import { checkRun } from '../src/run/check';
import type { RunRequestInput } from '../src/run/request';
import { WORKFLOW_TYPE } from '../src/run/wire';
import { TASKS } from '../src/tasks/registry';
import { bundleGotWorkflows } from '../worker/create';
import { type Harness, startHarness } from './support/harness';

let h: Harness;
let bundle: Awaited<ReturnType<typeof bundleGotWorkflows>>;

beforeAll(async () => {
  h = await startHarness();
  bundle = await bundleGotWorkflows();
});
afterAll(async () => h?.close());

function request(task: string, scheme: string, size: number): RunRequestInput {
  const t = TASKS[task]!;
  const problem = t.generateProblem(size, 11);
  return { task, problem: problem as RunRequestInput['problem'], goo: t.schemes[scheme]!({ size, problem }), labels: { scheme, size } };
}

describe("the GRS rebuilt from a run's event history", () => {
  it.each([
    ['sorting', 'got', 64],
    ['set-intersection', 'got', 32],
    ['keyword-counting', 'got4', 8],
    ['doc-merge', 'got', 4],
  ] as const)('equals the GRS the %s %s run returned', async (task, scheme, size) => {
    const handle = await startRun(h.client, request(task, scheme, size), { taskQueue: h.taskQueue });
    const result = await resultOf(handle);
    const { grs } = await inspectRun(h.client, handle.workflowId, undefined, { workflowBundle: bundle });
    expect(grs).toEqual(result.grs);
    // The rebuilt graph has every thought with its content, parents, score, validity, tokens and cost.
    expect(grs.thoughts.length).toBeGreaterThan(10);
    expect(grs.calls.reduce((s, c) => s + c.costUsd, 0)).toBeCloseTo(result.grs.totals.costUsd, 10);
    expect(bestThought(grs, TASKS[task]!.higherIsBetter)?.id).toBe(result.best?.id);
  });

  it('rebuilds the partial GRS of a run that failed half way', async () => {
    // GoT-32: the split succeeds, then the endpoint rejects the key (401, not retried) and the run fails.
    h.llm.injectFaults(['pass', { status: 401, message: 'Incorrect API key provided' }]);
    const handle = await startRun(h.client, request('sorting', 'got', 32), { taskQueue: h.taskQueue });
    await expect(resultOf(handle)).rejects.toThrow();
    const history = await h.client.workflow.getHandle(handle.workflowId).fetchHistory();
    const grs = await rebuildGrs(history, { workflowBundle: bundle });
    expect(grs.calls.map((c) => c.operationId)).toContain('split');
    expect(grs.thoughts.filter((t) => t.operationId === 'split')).toHaveLength(2);
    expect(grs.operations.find((o) => o.id === 'split')!.status).toBe('done');
    expect(grs.operations.some((o) => o.status === 'failed' && /API key rejected by http/.test(o.note ?? ''))).toBe(true);
  });
});

describe('the inspect command', () => {
  it('prints the GRS rebuilt from history in every format', async () => {
    const handle = await startRun(h.client, request('sorting', 'got', 32), { taskQueue: h.taskQueue });
    const result = await resultOf(handle);
    const got = (format: string) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'inspect', handle.workflowId, '--format', format], {
        env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress') },
      });
    const [json, summary, dot] = await Promise.all([got('json'), got('summary'), got('dot')]);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(toJson(result.grs, result.best!.id)));
    expect(summary.stdout).toContain(`best thought ${result.best!.id}`);
    expect(dot.stdout).toBe(toDot(result.grs, result.best!.id));
  });
});

describe('the inspect command on a run that named its scheme', () => {
  it('draws the GoO the worker expanded: the HTML page and summary of the run as it returned them', async () => {
    const problem = TASKS.sorting!.generateProblem(32, 12) as RunRequestInput['problem'];
    // Started as a client in another language starts it: the scheme by name, nothing checked or expanded here.
    const handle = await h.client.workflow.start(WORKFLOW_TYPE, {
      taskQueue: h.taskQueue,
      workflowId: `inspect-by-name-${Date.now()}`,
      args: [{ task: 'sorting', problem, scheme: { name: 'got' } } satisfies RunRequestInput],
    });
    const result = await resultOf(handle);
    const got = (format: string) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'inspect', handle.workflowId, '--format', format], {
        env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress') },
        maxBuffer: 16 * 1024 * 1024,
      });
    const [html, summary] = await Promise.all([got('html'), got('summary')]);
    expect(html.stdout).toBe(renderGrs(result.grs, 'html', handle.workflowId, TASKS.sorting!));
    const expanded = checkRun({ task: 'sorting', problem, scheme: { name: 'got' } }).request.goo;
    expect(result.grs.operations.map((o) => o.id)).toEqual(expanded.operations.map((o) => o.id));
    for (const op of expanded.operations) expect(summary.stdout).toContain(`    ${op.id.padEnd(18)} ${op.type}`);
  });
});

describe('GRS exports', () => {
  it('DOT, Mermaid and JSON carry every thought, every edge, the best path and volumes', async () => {
    const handle = await startRun(h.client, request('sorting', 'got', 32), { taskQueue: h.taskQueue });
    const { grs, best } = await resultOf(handle);
    const edges = grs.thoughts.reduce((n, t) => n + t.parents.length, 0);

    const dot = toDot(grs, best!.id);
    for (const t of grs.thoughts) expect(dot).toContain(`"${t.id}" [`);
    expect(dot.match(/ -> /g)).toHaveLength(edges);
    expect(dot).toContain('fillcolor="#ffe08a"');

    const mermaid = toMermaid(grs, best!.id);
    expect(mermaid.startsWith('flowchart TD')).toBe(true);
    expect(mermaid.match(/ --> /g)).toHaveLength(edges);
    expect(mermaid).toMatch(/class .*t_final_0_0.* best|class .* best/);

    const json = JSON.parse(toJson(grs, best!.id)) as { bestThought: string; thoughts: { id: string; volume: number }[] };
    expect(json.bestThought).toBe(best!.id);
    // The final thought was built from the whole graph above it: split, both part sorts, the merge...
    const finalVolume = json.thoughts.find((t) => t.id === best!.id)!.volume;
    expect(finalVolume).toBe(volume(grs, best!.id));
    expect(finalVolume).toBeGreaterThanOrEqual(5);
    expect(json.thoughts.find((t) => t.id === 'root/0')!.volume).toBe(0);
  });
});
