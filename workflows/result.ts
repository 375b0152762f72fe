import { bestThought, finalThoughts } from '../src/grs/analysis';
import type { RunResult } from '../src/run/request';
import { taskIdOf } from '../src/tasks/task-ref';
import type { RunContext } from './context';
import { noAnswerOf } from './no-answer';

/** Temporal refuses payloads over 2 MB; stay well below with room for the encoding's overhead. */
const MAX_RESULT_CHARS = 1_500_000;

/**
 * The run's result: its final thoughts, the best of them by the task's score direction, the whole
 * GRS, and, where the run's path reports it, whether it answered at all.
 */
export function resultOf(
  { request, grs, graph: running, path }: Pick<RunContext, 'request' | 'grs' | 'graph' | 'path'>,
  higherIsBetter: boolean,
): RunResult {
  const graph = grs.final();
  const best = bestThought(graph, higherIsBetter);
  const final = finalThoughts(graph);
  // Grown operations count where they ran: before the forEach that grew them.
  const status = path.survivesUnusableAnswers ? answerStatus(graph, final, running.inOrder()) : {};
  return fitPayloadLimit({ task: taskIdOf(request.task), labels: request.labels, final, ...(best ? { best } : {}), ...status, grs: graph });
}

function answerStatus(
  graph: RunResult['grs'],
  final: RunResult['final'],
  order: Parameters<typeof noAnswerOf>[2],
): Pick<RunResult, 'status' | 'noAnswer'> {
  const noAnswer = noAnswerOf(graph, final, order);
  return noAnswer ? { status: 'noAnswer', noAnswer } : { status: 'answered' };
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
