import { bestThought, finalThoughts } from '../src/grs/analysis';
import type { RunResult } from '../src/run/request';
import { taskIdOf } from '../src/tasks/task-ref';
import type { RunContext } from './context';

/** Temporal refuses payloads over 2 MB; stay well below with room for the encoding's overhead. */
const MAX_RESULT_CHARS = 1_500_000;

/** The run's result: its final thoughts, the best of them by the task's score direction, the whole GRS. */
export function resultOf({ request, grs }: Pick<RunContext, 'request' | 'grs'>, higherIsBetter: boolean): RunResult {
  const graph = grs.final();
  const best = bestThought(graph, higherIsBetter);
  return fitPayloadLimit({ task: taskIdOf(request.task), labels: request.labels, final: finalThoughts(graph), ...(best ? { best } : {}), grs: graph });
}

/**
 * A result too large for one payload keeps the whole graph (ids, edges, scores, calls) and the
 * final thoughts in full, but drops the other thoughts' states: `inspect` rebuilds them from history.
 */
export function fitPayloadLimit(result: RunResult): RunResult {
  if (JSON.stringify(result).length <= MAX_RESULT_CHARS) return result;
  const keep = new Set([...result.final.map((t) => t.id), ...(result.best ? [result.best.id] : [])]);
  const thoughts = result.grs.thoughts.map((t) => (keep.has(t.id) ? t : { ...t, state: {} }));
  return { ...result, grs: { ...result.grs, thoughts, statesOmitted: true } };
}
