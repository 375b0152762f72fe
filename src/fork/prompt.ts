import type { ChatMessage } from '../tasks/task';

/** The line that introduces a reviewer's instructions in a prompt (one source: the prompts and the tests read it). */
export const INSTRUCTIONS_HEADING = "A reviewer's instructions for this step (follow them):";

/**
 * A step's prompt with a reviewer's instructions (a fork's `instructions`, decision 102) after the
 * last user message's text, where the model reads them last, just before it answers.
 */
export function withInstructions(messages: ChatMessage[], instructions: string | undefined): ChatMessage[] {
  if (!instructions) return messages;
  let last = messages.length - 1;
  while (last >= 0 && messages[last]!.role !== 'user') last--;
  if (last < 0) return [...messages, { role: 'user', content: `${INSTRUCTIONS_HEADING}\n${instructions}` }];
  return messages.map((m, i) => (i === last ? { ...m, content: `${m.content}\n\n${INSTRUCTIONS_HEADING}\n${instructions}` } : m));
}
