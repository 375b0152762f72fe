import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ValidationError } from '../../goo/validate';
import { type PromptSet, partsWith } from '../../prompts/parts';
import { exampleSets, type FailedCase, proposerProblem, proposerTask, type Rejected, usableInstructions } from '../../prompts/propose';
import type { PartCandidates, PromptSearch } from '../../prompts/search';
import { checkedPromptSet } from '../../prompts/task-ref';
import { checkRun } from '../../run/check';
import { runOutcome } from '../../run/outcome';
import type { RunRequestInput, RunResult } from '../../run/request';
import { promptLayoutsOf } from '../../run/task-catalogue';
import { payloadRouteFromEnv } from '../../store/route';
import { getTask } from '../../tasks/registry';
import type { PromptRequest } from '../../tasks/task';
import { outputFolderId } from '../../util/output-folder';
import { pool } from '../../util/pool';
import { splitProblems } from '../problem';
import { type RunOptions, readJsonFile, requestFromOptions } from './run';

/**
 * `got prompts show` prints a task's prompts as parts a prompt set may reword; `got prompts propose`
 * writes a study's candidates (decision 73): the task's scheme runs on training cases, the cases it
 * got wrong go to a proposer (a task declared as data) that writes new instructions, and example sets
 * are drawn from training problems by the seed. Every LLM call is a Controller run (durable, cached,
 * priced, in the Web UI); the same command with the same `--out` reattaches to them.
 */

export interface ProposeOptions
  extends Omit<RunOptions, 'sample' | 'workflowId' | 'output' | 'doc' | 'docs' | 'problem' | 'taskFile' | 'json'> {
  prompt: string;
  /** Training cases the scheme is run on to find failures. */
  cases: number;
  /** Instructions to propose. */
  instructions: number;
  /** Example sets to draw (besides none), of `examples` examples each. */
  exampleSets: number;
  examples: number;
  out: string;
}

/** A task's prompt layouts as text: each prompt's parts (instruction and format as templates) and its variables. */
export function showPrompts(taskId: string): string {
  const task = getTask(taskId);
  const layouts = Object.entries(promptLayoutsOf(task));
  if (!layouts.length) return `Task "${task.id}" has no prompts a prompt set can reword.`;
  return layouts
    .map(([name, { variables, examplesFromProblems, parts }]) => {
      const vars = Object.entries(variables).map(([v, means]) => `{{${v}}} (${means})`);
      return [
        `## ${name}`,
        `variables: ${vars.join(', ') || 'none'}${examplesFromProblems ? '; examples can be drawn from problems' : ''}`,
        `instruction: ${parts.instruction}`,
        `format: ${parts.format || '(none)'}`,
        `approach: ${parts.approach ? `\n${parts.approach}` : '(none)'}`,
        `examples: ${parts.examples.length ? `\n${parts.examples.join('\n\n')}` : '(none)'}`,
      ].join('\n');
    })
    .join('\n\n');
}

/** What `got prompts propose` writes besides the candidates: how they were made. */
export interface Proposal {
  task: string;
  prompt: string;
  seed: number;
  model: string;
  cases: { sample: string; workflowId: string; score: number; solved: boolean | null; failed: boolean }[];
  proposer: { workflowId: string; proposals: string[]; rejected: Rejected[] };
  exampleSets: number;
}

export async function proposeCommand(
  o: ProposeOptions,
  log: (line: string) => void = (l) => console.error(l),
): Promise<{ candidates: PromptSearch; proposal: Proposal; files: { candidates: string; proposal: string } }> {
  const task = getTask(o.task);
  const layout = Object.hasOwn(task.promptLayouts ?? {}, o.prompt) ? task.promptLayouts![o.prompt]! : undefined;
  if (!layout)
    throw new ValidationError('options', [
      {
        path: '--prompt',
        message: `task "${task.id}" has no prompt "${o.prompt}" that can be reworded; it has ${Object.keys(task.promptLayouts ?? {}).join(', ') || 'none'}`,
      },
    ]);
  const base: PromptSet | undefined = o.prompts ? checkedPromptSet(task, readJsonFile(o.prompts, '--prompts')) : undefined;
  const size = o.size ?? task.sizes[0]!;
  // Enough generated problems for both the cases and the example sets; a dataset lends its whole training split.
  const count = Math.max(o.cases, o.exampleSets * o.examples, 1);
  const problems = splitProblems(task, { dataset: o.dataset, size, split: 'train', count, allRows: true });
  const caseRequests = problems
    .slice(0, o.cases)
    .map((p) => ({ ...p, request: requestFromOptions({ ...o, size, sample: p.id, json: true }) }));
  const route = payloadRouteFromEnv();
  for (const c of caseRequests) checkRun(c.request, route);
  const own = layout.build({
    prompt: o.prompt,
    params: {},
    thoughts: [task.rootState(problems[0]!.problem)],
    problem: problems[0]!.problem,
  });
  const current = partsWith(own.parts, base?.[o.prompt], {});
  const proposerRequest = (failures: FailedCase[]): RunRequestInput => ({
    task: proposerTask(o.instructions) as RunRequestInput['task'],
    problem: proposerProblem(task, o.prompt, current, layout.variables, failures) as RunRequestInput['problem'],
    scheme: { name: 'io' },
    llm: { ...caseRequests[0]!.request.llm, temperature: o.temperature ?? 1 },
    seed: o.seed,
    labels: { purpose: 'prompt proposal', task: task.id, prompt: o.prompt },
  });
  // The proposer's request is checked too before anything is spent (its cases are added once known).
  checkRun(proposerRequest([]), route);

  const out = resolve(o.out);
  mkdirSync(out, { recursive: true });
  const id = outputFolderId(out, 'prompts.json', 'prompts-');
  const [{ startRuntimeFor, exitOnInterrupt }, { resultUnlessStuck }, { startOrJoinRun }] = await Promise.all([
    import('../runtime'),
    import('../../client/health'),
    import('../../client/runs'),
  ]);
  const runtime = await startRuntimeFor(o, log);
  exitOnInterrupt(`runs in flight go on in Temporal; the same command with --out ${o.out} reattaches to them`, log);
  try {
    const run = async (workflowId: string, request: RunRequestInput): Promise<RunResult> => {
      const handle = await startOrJoinRun(runtime.client, request, { taskQueue: runtime.taskQueue, workflowId });
      return (await resultUnlessStuck(handle, o.stuckAfter !== undefined ? { stuckAfter: o.stuckAfter } : {})) as RunResult;
    };
    log(`Running ${o.scheme} of ${task.id} on ${caseRequests.length} training cases with the ${base ? 'given' : "task's own"} prompts`);
    type Case = { c: (typeof caseRequests)[number]; workflowId: string; result: RunResult; outcome: ReturnType<typeof runOutcome> };
    const cases: Case[] = [];
    // The local model answers one run at a time (as in got eval); an endpoint takes them together.
    await pool(caseRequests, o.llm === 'local' ? 1 : 8, async (c) => {
      const workflowId = `${id}-case-${c.id}`;
      const result = await run(workflowId, c.request);
      cases.push({ c, workflowId, result, outcome: runOutcome(result, task.noAnswerScore) });
    });
    cases.sort((a, b) => caseRequests.indexOf(a.c) - caseRequests.indexOf(b.c));
    const failedOf = (solved: boolean | null, status: string) => status === 'noAnswer' || solved === false;
    const failures: FailedCase[] = cases
      .filter(({ outcome }) => failedOf(outcome.solved, outcome.status))
      .map(({ c, result, outcome }) => {
        const request: PromptRequest = { prompt: o.prompt, params: {}, thoughts: [task.rootState(c.problem)], problem: c.problem };
        return {
          sample: c.id,
          input: layout.build(request).input,
          answer: result.best ? task.answerText(result.best.state) : (outcome.error ?? 'no answer'),
          score: outcome.score,
        };
      });
    log(`  ${failures.length} of ${cases.length} cases wrong; asking for ${o.instructions} instructions`);

    const proposerId = `${id}-propose`;
    const proposed = await run(proposerId, proposerRequest(failures));
    const proposals = proposed.final.filter((t) => t.valid !== false).map((t) => String((t.state as { output?: unknown }).output ?? ''));
    const { kept, rejected } = usableInstructions(proposals, { current: current.instruction, variables: layout.variables });
    log(
      `  ${kept.length} usable instructions${rejected.length ? `, ${rejected.length} set aside (${rejected.map((r) => r.why).join('; ')})` : ''}`,
    );

    const sets = layout.exampleFrom
      ? exampleSets(
          layout.exampleFrom,
          problems.map((p) => p.problem),
          { sets: o.exampleSets, size: o.examples, seed: o.seed },
        )
      : [];
    const part: PartCandidates = {
      ...(kept.length ? { instruction: kept } : {}),
      ...(sets.length || o.exampleSets > 0 ? { examples: [[], ...sets] } : {}),
    };
    const candidates: PromptSearch = Object.keys(part).length ? { [o.prompt]: part } : {};
    const proposal: Proposal = {
      task: task.id,
      prompt: o.prompt,
      seed: o.seed,
      model: String(caseRequests[0]!.request.llm?.model ?? ''),
      cases: cases.map(({ c, workflowId, outcome }) => ({
        sample: c.id,
        workflowId,
        score: outcome.score,
        solved: outcome.solved,
        failed: failedOf(outcome.solved, outcome.status),
      })),
      proposer: { workflowId: proposerId, proposals, rejected },
      exampleSets: sets.length,
    };
    const files = { candidates: join(out, 'candidates.json'), proposal: join(out, 'proposal.json') };
    writeFileSync(files.candidates, `${JSON.stringify(candidates, null, 2)}\n`);
    writeFileSync(files.proposal, `${JSON.stringify(proposal, null, 2)}\n`);
    return { candidates, proposal, files };
  } finally {
    await runtime.close();
  }
}
