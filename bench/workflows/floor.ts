// A workflow bundle for `bench/step-floor.ts`: the Controller and, beside it, the least any
// workflow can do for a chain of dependent LLM calls, so the two are measured on the same worker.
import { proxyActivities } from '@temporalio/workflow';
import type { GotActivities, LlmStep } from '../../activities';

export { graphOfThoughts } from '../../workflows';

/** Calls the LLM step `depth` times, each after the one before, with the Controller's activity options; nothing else. */
export async function activityChain(first: LlmStep, depth: number, options: Parameters<typeof proxyActivities>[0]): Promise<number> {
  const { callLlm } = proxyActivities<GotActivities>(options);
  let step = first;
  for (let i = 0; i < depth; i++) {
    const result = await callLlm(step);
    step = { ...step, prompt: 'improve', thoughts: [result.answers[0]![0]!.state], seed: step.seed + 1 };
  }
  return depth;
}
