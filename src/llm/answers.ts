import { encode } from 'gpt-tokenizer';
import type { ChatMessage } from '../tasks/task';

/** An answer split into what the model reasoned and what it answered. */
export interface SplitAnswer {
  answer: string;
  reasoning?: string;
}

const THINK = /<think>([\s\S]*?)(?:<\/think>|$)/g;

/**
 * Separates a reasoning model's thinking from its answer: `<think>…</think>` blocks in the content
 * (an unclosed one, cut at max tokens, is all thinking) and a separate reasoning field
 * (`reasoning_content`, `reasoning`), so parsers only ever see the answer.
 */
export function splitReasoning(content: string, field?: unknown): SplitAnswer {
  const blocks: string[] = [];
  if (typeof field === 'string' && field.trim()) blocks.push(field.trim());
  const answer = content.replace(THINK, (_, inner: string) => {
    if (inner.trim()) blocks.push(inner.trim());
    return '';
  });
  return blocks.length ? { answer: answer.trim(), reasoning: blocks.join('\n\n') } : { answer: content };
}

/** Tokens of a chat prompt as OpenAI's chat format counts them (per message overhead included). */
export function promptTokens(messages: ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + 4 + encode(m.content).length, 3);
}

/** Tokens of a text by the GPT tokenizer: an estimate for endpoints that report no usage. */
export const textTokens = (text: string): number => (text ? encode(text).length : 0);
