/**
 * Reading one sampled answer into thoughts, as the LLM step records them: pure (no I/O, no
 * Temporal), so a benchmark counts usable answers exactly as a run does.
 */

import { closedBeforeCut } from '../src/tasks/answer-text';
import type { AnyTask, ParsedThought, PromptRequest } from '../src/tasks/task';

/**
 * The answer's thoughts; an invalid one keeps the start of what the model said, for the GRS and a
 * `noAnswer` reason. Where the structure closed (`end`) served the engine only: thoughts are recorded as before.
 */
export function parseAnswer(task: AnyTask, request: PromptRequest, text: string, finishReason: string): ParsedThought[] {
  const said = text.slice(0, MAX_KEPT_CHARS);
  return readAnswer(task, request, text, finishReason).map(({ end: _end, ...t }) => (t.valid || !said ? t : { ...t, said }));
}

/** How much of an unusable answer (or of a reasoning) a thought keeps: enough to see what went wrong, not a whole document. */
export const MAX_KEPT_CHARS = 2000;

/** An answer that cannot be used becomes an invalid thought the graph can route around, never a failed run. */
function readAnswer(task: AnyTask, request: PromptRequest, text: string, finishReason: string): ParsedThought[] {
  if (finishReason === 'content_filter') return invalidAnswer(task, request, text, 'the model refused to answer (content filter)');
  if (text.trim() === '') return invalidAnswer(task, request, text, 'the model returned an empty answer');
  try {
    const parsed = task.parseResponse(request, text);
    // A cut-off answer may still parse a broken structure (a sub-list, half a document): that is not the
    // model's answer, so it is invalid. One whose structure closed before the cut (chatter was cut) is usable.
    if (finishReason === 'length')
      return parsed.map((p) =>
        p.valid && closedBeforeCut(text, p.end)
          ? p
          : {
              ...p,
              valid: false,
              error: p.valid ? 'answer truncated at max tokens' : `${p.error ?? 'invalid'} (answer truncated at max tokens)`,
            },
      );
    return parsed;
  } catch (e) {
    return invalidAnswer(task, request, text, `could not parse the answer: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** The task's own reading of "no answer" keeps its context (e.g. which part of the problem); the text is kept for inspection. */
function invalidAnswer(task: AnyTask, request: PromptRequest, text: string, error: string): ParsedThought[] {
  let states: ParsedThought[];
  try {
    states = task.parseResponse(request, '');
  } catch {
    states = [{ state: {}, valid: false }];
  }
  return states.map((p) => ({ state: { ...p.state, answer: text.slice(0, MAX_KEPT_CHARS) }, valid: false, error }));
}
