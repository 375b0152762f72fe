import type { RunResult } from './request';

/** The engine's review of the run's best answer, when it reviewed that one (document merges). */
export const bestReview = (result: Pick<RunResult, 'best' | 'grs'>) =>
  result.best && result.grs.review?.thought === result.best.id ? result.grs.review : undefined;

/** How a finished run counts in an evaluation or a study. */
export interface RunOutcome {
  status: 'completed' | 'noAnswer';
  score: number;
  solved: boolean | null;
  /** Why a run counted as no answer. */
  error?: string;
}

/**
 * A run that ends with no valid or no scored final thought (e.g. its first split was unreadable)
 * counts as an unreadable answer, scored `noAnswerScore`, as in the paper. Pure: the trial workflow
 * scores its runs with it too.
 */
export function runOutcome(result: RunResult, noAnswerScore: number): RunOutcome {
  const noAnswer = result.status === 'noAnswer' || result.best?.score === undefined;
  if (!noAnswer) return { status: 'completed', score: result.best!.score!, solved: result.best!.solved ?? null };
  const error = result.noAnswer ? `no answer from ${result.noAnswer.operation}: ${result.noAnswer.reason}` : 'no scored final thought';
  return { status: 'noAnswer', score: noAnswerScore, solved: false, error };
}
