/**
 * How fast the local model server is on this machine: model load time, then generation speed for
 * one request alone and for two at once (two sequences of one context), per llama.cpp thread count.
 * Not part of `npm run bench` (that one needs no model):
 * `npx tsx bench/local-llm.ts [--local-model smollm2-135m] [--tokens 64] [--threads 1,2]`.
 * Prints a Markdown table; the figures quoted in docs/decisions.md (decision 17) come from it.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import OpenAI from 'openai';
import { ensureLocalModel } from '../src/localllm/model';
import { builtInModel } from '../src/localllm/models';
import { startLocalLlm } from '../src/localllm/server';
import { median } from './stats';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const tokens = Number(arg('--tokens', '64'));
const threadCounts = arg('--threads', '1,2').split(',').map(Number);
const reps = 3;

const model = builtInModel(arg('--local-model', 'smollm2-135m'));
// GOT_LOCAL_MODEL, when set, still names a file to measure instead.
const modelPath = await ensureLocalModel({ model, log: console.error });
console.log(
  `Local model benchmark (${modelPath.split('/').at(-1)}), ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average at start ${loadavg()[0]!.toFixed(1)}.`,
);
console.log(`Each request: one prompt, ${tokens} completion tokens (greedy, cut at max_tokens); median of ${reps}.\n`);
console.log('| threads | load s | one request: tok/s | first token ms | two at once: tok/s each | total tok/s |');
console.log('|---|---|---|---|---|---|');

for (const threads of threadCounts) {
  const llm = await startLocalLlm({ modelPath, port: 0, threads, parallel: 2, contextSize: model.contextSize });
  const openai = new OpenAI({ baseURL: llm.baseURL, apiKey: 'unused', maxRetries: 0 });
  const ask = async (topic: string) => {
    const startedAt = performance.now();
    let firstAt = 0;
    let completionTokens = 0;
    const stream = await openai.chat.completions.create({
      model: llm.model,
      messages: [{ role: 'user', content: `Write a long story about ${topic}.` }],
      max_tokens: tokens,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      if (!firstAt && chunk.choices[0]?.delta.content) firstAt = performance.now();
      if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
    }
    const ms = performance.now() - startedAt;
    return { ms, firstMs: firstAt - startedAt, tokPerS: (completionTokens / ms) * 1000, completionTokens };
  };
  await ask('a warm-up'); // the first request pays for allocating the compute buffers
  const alone = [];
  const pairs = [];
  for (let i = 0; i < reps; i++) {
    alone.push(await ask(`a lighthouse number ${i}`));
    const startedAt = performance.now();
    const both = await Promise.all([ask(`a harbour number ${i}`), ask(`a mountain number ${i}`)]);
    const wall = performance.now() - startedAt;
    pairs.push({ each: median(both.map((b) => b.tokPerS)), total: (both.reduce((s, b) => s + b.completionTokens, 0) / wall) * 1000 });
  }
  console.log(
    `| ${threads} | ${(llm.loadMs / 1000).toFixed(1)} | ${median(alone.map((a) => a.tokPerS)).toFixed(1)} | ${median(alone.map((a) => a.firstMs)).toFixed(0)} | ` +
      `${median(pairs.map((p) => p.each)).toFixed(1)} | ${median(pairs.map((p) => p.total)).toFixed(1)} |`,
  );
  await llm.close();
}
console.log(`\nLoad average at the end: ${loadavg()[0]!.toFixed(1)}.`);
