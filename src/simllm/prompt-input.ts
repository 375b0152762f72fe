import { findIntegerLists } from '../tasks/integer-lists';
import type { Answer, Recognised } from './responders';
import { sometimesMalformed } from './sampling';

/** The list on the last line starting with `label`: a prompt's own input comes after its examples. */
export function lastListAfter(prompt: string, label: string): number[] | undefined {
  const last = [...prompt.matchAll(new RegExp(`^${label}\\s*(\\[[^\\[\\]]*\\])`, 'gm'))].at(-1);
  return last ? findIntegerLists(last[1]!)[0] : undefined;
}

/**
 * A task's responder: recognises its prompts by their marker sentences and answers them, sometimes
 * with a malformed answer (as models do); undefined when the prompt is not one of the task's or its
 * input cannot be read.
 */
export function responderFor<K extends string>(
  task: string,
  markers: Record<K, string>,
  answerFor: (kind: K, prompt: string) => Answer | undefined,
) {
  const kinds = Object.keys(markers) as K[];
  return (prompt: string): Recognised | undefined => {
    const kind = kinds.find((k) => prompt.includes(markers[k]));
    const answer = kind && answerFor(kind, prompt);
    return answer ? { kind: `${task}.${kind}`, answer: sometimesMalformed(answer) } : undefined;
  };
}
