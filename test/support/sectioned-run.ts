import type { ThoughtState } from '../../src/grs/types';
import { docMergeResponder } from '../../src/simllm/doc-merge';
import type { DocMergeProblem } from '../../src/tasks/doc-merge';
import { docMergeTask } from '../../src/tasks/doc-merge';
import { seededRandom } from '../../src/util/random';

/**
 * Runs a document merging GoO in this process against the simulated LLM's doc-merge answers,
 * without Temporal: generate, aggregate, score (judge or local), keepBestN and forEach over the
 * task's splits. For measuring what the task and the simulator make of a sectioned merge; the
 * engine's own forEach is tested with the engine.
 */

interface Thought {
  state: ThoughtState;
  score?: number;
}

type Op = { id: string; type: string; inputs: string[] } & Record<string, unknown>;

export interface SectionedRun {
  final: Thought[];
  calls: number;
}

export function runSectioned(goo: { operations: Op[] }, problem: DocMergeProblem, seed = 0): SectionedRun {
  let calls = 0;
  let next = seed;
  const ask = (prompt: string, thoughts: ThoughtState[], k: number): Thought[] => {
    const content = docMergeTask.buildPrompt({ prompt, params: {}, thoughts, problem })[0]!.content;
    const answer = docMergeResponder(content);
    calls++;
    return Array.from({ length: k }, () => {
      const text = answer ? answer.answer(seededRandom(next++)) : '';
      return { state: docMergeTask.parseResponse({ prompt, params: {}, thoughts, problem }, text)[0]!.state };
    });
  };
  const judge = (t: Thought, prompt: string, samples: number): number => {
    const scorer = docMergeTask.llmScorers![prompt]!;
    const content = scorer.buildPrompt(t.state, problem)[0]!.content;
    calls++;
    const ratings = Array.from({ length: samples }, () =>
      scorer.parseRatings(docMergeResponder(content)?.answer(seededRandom(next++)) ?? ''),
    ).filter((r) => r !== undefined);
    return ratings.length ? scorer.combine(ratings, { state: t.state, problem }) : scorer.unparseableScore;
  };

  const runGraph = (ops: Op[], start: Thought[]): Thought[] => {
    const out = new Map<string, Thought[]>();
    for (const op of ops) {
      const inputs = op.inputs.length ? op.inputs.flatMap((i) => out.get(i)!) : start;
      out.set(op.id, step(op, inputs));
    }
    const used = new Set(ops.flatMap((o) => o.inputs));
    return ops.filter((o) => !used.has(o.id)).flatMap((o) => out.get(o.id)!);
  };

  const step = (op: Op, inputs: Thought[]): Thought[] => {
    switch (op.type) {
      case 'generate':
        return inputs.flatMap((t) => ask(op.prompt as string, [t.state], op.k as number));
      case 'aggregate':
        return ask(
          op.prompt as string,
          inputs.map((t) => t.state),
          op.k as number,
        );
      case 'score': {
        const scorer = op.scorer as { kind: string; prompt?: string; samples?: number };
        return inputs.map((t) => ({
          ...t,
          score: scorer.kind === 'llm' ? judge(t, scorer.prompt!, scorer.samples ?? 1) : docMergeTask.score!(t.state, problem),
        }));
      }
      case 'keepBestN':
        return [...inputs].sort((a, b) => (b.score ?? -1) - (a.score ?? -1)).slice(0, op.n as number);
      case 'forEach': {
        const { split, params } = op.parts as { split: string; params: Record<string, unknown> };
        const parts = docMergeTask.splits![split]!(
          inputs.map((t) => t.state),
          problem,
          params,
        );
        if (parts.length > (op.maxParts as number)) throw new Error(`${op.id}: ${parts.length} parts, more than maxParts ${op.maxParts}`);
        const body = op.body as Op[];
        return parts.flatMap((part) => {
          if ('keep' in part) return part.keep.map((i) => inputs[i]!);
          const thoughts = 'state' in part ? [{ state: part.state }] : part.thoughts.map((i) => inputs[i]!);
          return body.length ? runGraph(body, thoughts) : thoughts;
        });
      }
      default:
        throw new Error(`no ${op.type} here`);
    }
  };

  return { final: runGraph(goo.operations, [{ state: docMergeTask.rootState(problem) }]), calls };
}
