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

/** Tokens of a chat prompt as OpenAI's chat format counts them: each message's text plus its overhead. */
export function chatPromptTokens(messages: readonly ChatMessage[], encode: (text: string) => number[]): number {
  return messages.reduce((sum, m) => sum + 4 + encode(m.content).length, 3);
}

/**
 * Usage counted here for an endpoint that reported none: the prompt once per request (in OpenAI's
 * chat format, per-message overhead included) and every answer with its reasoning. The GPT tokenizer
 * is an estimate for other models' tokenizers; it is loaded only when needed (~0.3 s of CPU).
 */
export async function estimateUsage(
  messages: ChatMessage[],
  requests: number,
  outputs: string[],
): Promise<{ promptTokens: number; completionTokens: number }> {
  const { encode } = await import('gpt-tokenizer');
  const prompt = chatPromptTokens(messages, encode);
  return { promptTokens: prompt * requests, completionTokens: outputs.reduce((sum, text) => sum + (text ? encode(text).length : 0), 0) };
}
