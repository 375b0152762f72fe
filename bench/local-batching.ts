/**
 * What decoding a request's samples together buys on this machine: one request with n = 1, 5 and 10
 * samples of the same prompt, served three ways: one after another on one sequence (the server
 * before batching, `batch: 1`), together with the prompt read on every sequence (`promptSharing:
 * 'evaluate'`), and together with the prompt read once and its KV cache copied (the default).
 * Not part of `npm run bench` (that one needs no model):
 * `npx tsx bench/local-batching.ts [--model smollm2-135m|qwen2.5-coder-1.5b] [--tokens 64] [--repeats 1] [--n 1,5,10]
 * [--ways before,evaluate,copy] [--examples 4]`; the first way named is the one the others are compared with.
 * Prints a Markdown table: tokens per second counts the completion tokens of all samples over the
 * request's wall time, prompt reading included, as a caller sees it; tokens per CPU second over the
 * CPU time the process spent on the request, which a busy machine disturbs much less.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import OpenAI from 'openai';
import { ensureLocalModel } from '../src/localllm/model';
import { builtInModel } from '../src/localllm/models';
import { type LocalLlm, type LocalLlmOptions, startLocalLlm } from '../src/localllm/server';
import { median } from './stats';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const model = builtInModel(arg('--model', 'smollm2-135m'));
const tokens = Number(arg('--tokens', '64'));
const repeats = Number(arg('--repeats', '1'));
const ns = arg('--n', '1,5,10').split(',').map(Number);
/** How many worked examples the prompt carries: 4 make it about 600 tokens, 0 about 120. */
const examples = Number(arg('--examples', '4'));

/** A prompt the size of a GoT sorting prompt with its examples (about 600 tokens), asking for a long answer. */
const numbers = (seed: number) => Array.from({ length: 32 }, (_, i) => (i * 37 + seed * 11) % 10);
const prompt = (run: number) =>
  [
    // A word of its own at the start of each request, so none reuses the prompt an earlier one left evaluated.
    `Request ${run}.`,
    '<Instruction> Sort the following list of numbers in ascending order. Output only the sorted list of numbers, no additional text. </Instruction>',
    '<Examples>',
    ...Array.from({ length: examples }, (_, i) => i + 1).flatMap((seed) => [
      `Input: [${numbers(seed).join(', ')}]`,
      `Output: [${[...numbers(seed)].sort((a, b) => a - b).join(', ')}]`,
    ]),
    '</Examples>',
    'Then explain, step by step and at length, how you sorted it.',
    `Input: [${numbers(5).join(', ')}]`,
  ].join('\n');

const WAYS = {
  before: { name: 'one after another (before)', options: { batch: 1 } },
  evaluate: { name: 'together, prompt read on each', options: { promptSharing: 'evaluate' } },
  copy: { name: 'together, prompt copied (now)', options: {} },
} satisfies Record<string, { name: string; options: Partial<LocalLlmOptions> }>;
const ways = arg('--ways', 'before,evaluate,copy')
  .split(',')
  .map((w) => WAYS[w as keyof typeof WAYS]);

const modelPath = await ensureLocalModel({ model, log: console.error });
const machine = `${execFileSync('uname', ['-m']).toString().trim()}, ${cpus().length} × ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
console.log(`Batched samples on ${model.name} (${modelPath.split('/').at(-1)}), context ${model.contextSize} tokens, 1 thread.`);
console.log(`Machine: ${machine}; load average at start ${loadavg()[0]!.toFixed(1)}.`);
console.log(`One request, ${tokens} completion tokens per sample at most, temperature 1; median of ${repeats}; the ways take turns.\n`);

// All servers up first, then the ways take turns at each n, so a change in the machine's load falls on all of them alike.
const servers: { way: (typeof ways)[number]; llm: LocalLlm; openai: OpenAI }[] = [];
for (const way of ways) {
  const llm = await startLocalLlm({ modelPath, port: 0, contextSize: model.contextSize, batch: Math.max(...ns), ...way.options });
  servers.push({ way, llm, openai: new OpenAI({ baseURL: llm.baseURL, apiKey: 'unused', maxRetries: 0, timeout: 3_600_000 }) });
}
let run = 0;
const ask = async (server: (typeof servers)[number], n: number, seed: number) => {
  const startedAt = performance.now();
  const cpuAt = process.cpuUsage();
  // Streamed, as the engine asks the local model: a long answer would outlast fetch's wait for response headers.
  const stream = await server.openai.chat.completions.create({
    model: server.llm.model,
    messages: [{ role: 'user', content: prompt(run++) }],
    n,
    max_tokens: tokens,
    temperature: 1,
    seed,
    stream: true,
    stream_options: { include_usage: true },
  });
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of stream) usage = chunk.usage ?? usage;
  const seconds = (performance.now() - startedAt) / 1000;
  const cpu = process.cpuUsage(cpuAt);
  return {
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    promptTokens: usage!.prompt_tokens,
    completionTokens: usage!.completion_tokens,
  };
};
for (const server of servers) await ask(server, 1, 0); // the first request pays for allocating the compute buffers

const runs = new Map<string, Awaited<ReturnType<typeof ask>>[]>();
for (let r = 0; r < repeats; r++) {
  for (const n of ns) {
    for (const server of servers) {
      const result = await ask(server, n, 100 * r + n);
      const key = `${server.way.name}|${n}`;
      runs.set(key, [...(runs.get(key) ?? []), result]);
      console.error(
        `${server.way.name}, n=${n}: ${result.completionTokens} tokens in ${result.seconds.toFixed(1)} s (${result.cpuSeconds.toFixed(1)} s of CPU)`,
      );
    }
  }
}
for (const server of servers) await server.llm.close();

const rows = ns.flatMap((n) =>
  servers.map(({ way }) => {
    const measured = runs.get(`${way.name}|${n}`)!;
    return {
      way: way.name,
      n,
      promptTokens: measured[0]!.promptTokens,
      completionTokens: median(measured.map((m) => m.completionTokens)),
      seconds: median(measured.map((m) => m.seconds)),
      tokPerS: median(measured.map((m) => m.completionTokens / m.seconds)),
      tokPerCpuS: median(measured.map((m) => m.completionTokens / m.cpuSeconds)),
    };
  }),
);
console.log('| n | way | prompt tokens | completion tokens | wall s | tok/s | vs before | tok per CPU s | vs before |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const row of rows) {
  const before = rows.find((r) => r.n === row.n && r.way === ways[0]!.name)!;
  console.log(
    `| ${row.n} | ${row.way} | ${row.promptTokens} | ${row.completionTokens} | ${row.seconds.toFixed(1)} | ${row.tokPerS.toFixed(1)} | ` +
      `${(row.tokPerS / before.tokPerS).toFixed(2)}× | ${row.tokPerCpuS.toFixed(1)} | ${(row.tokPerCpuS / before.tokPerCpuS).toFixed(2)}× |`,
  );
}
// On a machine shared with other work, wall time depends on the share of the CPU the server got; CPU time much less so.
console.log(`\nLoad average at the end: ${loadavg()[0]!.toFixed(1)}. CPU seconds are this process's (llama.cpp runs in it).`);
