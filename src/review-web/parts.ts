import type { Grs } from '../grs/types';
import { getTask } from '../tasks/registry';

/** One part of a run a reviewer may redo with instructions: a forEach's part whose steps asked the model. */
export interface RedoPart {
  /** The part's operation id (`merge[3]`): what a fork's instruction names. */
  part: string;
  /** What the part made, as text (a clause group's merged clause). */
  text: string;
  /** LLM calls its steps made (or, in a fork, took from the parent). */
  calls: number;
}

/**
 * The parts of the run's first forEach whose parts asked the model (a merge's clause groups: the
 * groups the engine could not keep as they were), each with what it made. Later forEach operations
 * work on these parts' results, so redoing a part there redoes what follows from it, and nothing else.
 */
export function redoParts(grs: Grs): RedoPart[] {
  const callsOf = new Map<string, number>();
  for (const call of grs.calls) {
    const op = grs.operations.find((o) => o.id === call.operationId);
    if (op?.grownBy === undefined || op.part === undefined) continue;
    const part = `${op.grownBy}[${op.part}]`;
    callsOf.set(part, (callsOf.get(part) ?? 0) + 1);
  }
  const forEach = grs.operations.find((o) => o.parts && [...callsOf.keys()].some((p) => p.startsWith(`${o.id}[`)));
  if (!forEach) return [];
  const thoughts = new Map(grs.thoughts.map((t) => [t.id, t]));
  const task = getTask(grs.task);
  return [...callsOf]
    .filter(([part]) => part.startsWith(`${forEach.id}[`))
    .map(([part, calls]) => {
      // The part's last operation with output: what the part passed on.
      const last = grs.operations.filter((o) => o.id.startsWith(`${part}.`) && o.outputThoughts.length).at(-1);
      const made = last && thoughts.get(last.outputThoughts[0]!);
      let text = '';
      try {
        text = made ? task.answerText(made.state) : '';
      } catch {
        text = made ? JSON.stringify(made.state) : '';
      }
      return { part, text, calls };
    })
    .sort((a, b) => partIndex(a.part) - partIndex(b.part));
}

const partIndex = (part: string) => Number(/\[(\d+)\]$/.exec(part)?.[1] ?? 0);
