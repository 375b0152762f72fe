import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible endpoint whose answers depend on a prompt's wording, as a real model's do and
 * the simulator's do not: it sorts the list after the last `Input:` of a prompt correctly when the
 * prompt contains `word`, and otherwise drops its last number. What a prompt search must find. Asked
 * to propose an instruction (`got prompts propose`), it answers the `proposals` in turn, one per answer.
 */
export interface WordingLlm {
  baseURL: string;
  /** Every prompt received (the user message). */
  prompts: string[];
  close(): Promise<void>;
}

export async function startWordingLlm(word: string, proposals: string[] = []): Promise<WordingLlm> {
  const prompts: string[] = [];
  let proposed = 0;
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c.toString();
    });
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; n?: number; messages: { role: string; content: string }[] };
      const prompt = body.messages.at(-1)?.content ?? '';
      prompts.push(prompt);
      const list = (/Input: \[([^\]]*)\]\s*$/.exec(prompt)?.[1] ?? '')
        .split(',')
        .filter((x) => x.trim() !== '')
        .map(Number);
      const sorted = [...list].sort((a, b) => a - b);
      const proposing = prompt.includes('</NewInstruction>');
      const answerOne = () =>
        proposing
          ? `Here it is.\n<NewInstruction>${proposals[proposed++ % Math.max(1, proposals.length)] ?? ''}</NewInstruction>`
          : `[${(prompt.includes(word) ? sorted : sorted.slice(0, -1)).join(', ')}]`;
      const answers = Array.from({ length: body.n ?? 1 }, answerOne);
      const answer = answers[0]!;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-wording',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: answers.map((content, index) => ({
            index,
            message: { role: 'assistant', content, refusal: null },
            logprobs: null,
            finish_reason: 'stop',
          })),
          usage: { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(answer.length / 4), total_tokens: 0 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    prompts,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
