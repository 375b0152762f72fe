/**
 * What the prefix cache (decision 95) and token prediction (decision 96) buy on a real model: the
 * prompts of one GoT run, sent one after another at temperature 0 to the local server with the
 * features off and on, side by side on the same prompts:
 * - `judge`: doc-merge judge prompts of one problem (its instructions, examples and NDAs, then each
 *   candidate merge: a source NDA, as a run's first judged drafts are), as GoT's score step sends them;
 * - `sorting`: GoT's sorting of 32 numbers: the split, the sort of each half, their merge, an improve.
 * Not part of `npm run bench` (that one needs no model):
 * `npx tsx bench/prefix-cache.ts [--model qwen2.5-coder-1.5b] [--ways off,cache,lookup,lookup1,lookup4,draft]
 * [--workloads judge,sorting] [--docs 3] [--threads 1] [--seed 1]`. `draft` drafts with qwen2.5-coder-0.5b.
 * Prints a Markdown table: the time to the first token (reading the prompt, or taking it from the
 * cache), generating speed after it, wall and CPU time, prompt tokens from the cache, predictions the
 * model agreed with, and whether every answer is the first way's. The first way named is the one the
 * others are compared with.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, totalmem } from 'node:os';
import OpenAI from 'openai';
import { ensureLocalModel } from '../src/localllm/model';
import { builtInModel } from '../src/localllm/models';
import { type LocalLlmOptions, startLocalLlm } from '../src/localllm/server';
import { generateDocMergeProblem } from '../src/tasks/doc-merge/dataset';
import { judgePrompt } from '../src/tasks/doc-merge/prompts';
import { generateSortingProblem } from '../src/tasks/sorting/dataset';
import { improvePrompt, mergePrompt, sortPrompt, splitPrompt } from '../src/tasks/sorting/prompts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const model = builtInModel(arg('--model', 'qwen2.5-coder-1.5b'));
const threads = Number(arg('--threads', '1'));
const seed = Number(arg('--seed', '1'));
const docs = Number(arg('--docs', '3'));

/** One workload: its prompts in the order a run sends them, and the answer length each may take. */
interface Workload {
  name: string;
  prompts: { text: string; maxTokens: number }[];
}

const ascending = (list: readonly number[]) => [...list].sort((a, b) => a - b);
const WORKLOADS: Record<string, () => Workload> = {
  judge: () => {
    const { documents } = generateDocMergeProblem(docs, seed);
    return { name: `doc-merge judge, ${docs} NDAs`, prompts: documents.map((d) => ({ text: judgePrompt(documents, d), maxTokens: 48 })) };
  },
  sorting: () => {
    const { list } = generateSortingProblem(32, seed);
    const [a, b] = [list.slice(0, 16), list.slice(16)];
    // The merge and improve get right halves and an attempt one number short, so the prompts do not depend on the answers.
    const attempt = ascending(list).slice(1);
    return {
      name: 'GoT sorting, 32 numbers',
      prompts: [
        splitPrompt(list, 2),
        sortPrompt(a),
        sortPrompt(b),
        mergePrompt(ascending(a), ascending(b)),
        improvePrompt(list, attempt),
      ].map((text) => ({ text, maxTokens: 120 })),
    };
  },
};

const WAYS = {
  off: { name: 'off', options: { prefixCache: false, prediction: 'off' } },
  cache: { name: 'prefix cache', options: { prefixCache: true, prediction: 'off' } },
  lookup: { name: 'prefix cache + input lookup', options: { prefixCache: true, prediction: 'input-lookup' } },
  lookup1: {
    name: 'prefix cache + input lookup (pattern 1 token)',
    options: { prefixCache: true, prediction: 'input-lookup', inputLookup: { patternMinTokens: 1, predictMaxTokens: 3 } },
  },
  lookup4: {
    name: 'prefix cache + input lookup (pattern 4 tokens)',
    options: { prefixCache: true, prediction: 'input-lookup', inputLookup: { patternMinTokens: 4, predictMaxTokens: 3 } },
  },
  draft: { name: 'prefix cache + draft 0.5B', options: { prefixCache: true, prediction: 'draft' } },
} satisfies Record<string, { name: string; options: Partial<LocalLlmOptions> }>;
const ways = arg('--ways', 'off,cache,lookup,draft')
  .split(',')
  .map((w) => WAYS[w as keyof typeof WAYS]);
const workloads = arg('--workloads', 'judge,sorting')
  .split(',')
  .map((w) => WORKLOADS[w]!());

const modelPath = await ensureLocalModel({ model, log: console.error, env: { ...process.env, GOT_LOCAL_MODEL: '' } });
const draftModelPath = ways.some((w) => w.options.prediction === 'draft')
  ? await ensureLocalModel({ model: builtInModel('qwen2.5-coder-0.5b'), log: console.error, env: { ...process.env, GOT_LOCAL_MODEL: '' } })
  : undefined;
const machine = `${execFileSync('uname', ['-m']).toString().trim()}, ${cpus().length} × ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
console.log(`Prefix cache and prediction on ${model.name}, context ${model.contextSize} tokens, ${threads} thread(s), seed ${seed}.`);
console.log(`Machine: ${machine}; load average at start ${loadavg()[0]!.toFixed(1)}.\n`);

interface Row {
  way: string;
  workload: string;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  firstTokenS: number;
  generatingS: number;
  wallS: number;
  /** CPU time of this process (llama.cpp runs in it): what a busy machine disturbs much less than wall time. */
  cpuS: number;
  validated: number;
  refuted: number;
  answers: string[];
}

const rows: Row[] = [];
for (const way of ways) {
  // A server per way, the workloads one after another on it as a run's steps would be.
  const llm = await startLocalLlm({
    modelPath,
    port: 0,
    contextSize: model.contextSize,
    threads,
    ...way.options,
    ...(draftModelPath && { draftModelPath }),
  });
  const openai = new OpenAI({ baseURL: llm.baseURL, apiKey: 'unused', maxRetries: 0, timeout: 3_600_000 });
  for (const workload of workloads) {
    const row: Row = {
      way: way.name,
      workload: workload.name,
      promptTokens: 0,
      cachedTokens: 0,
      completionTokens: 0,
      firstTokenS: 0,
      generatingS: 0,
      wallS: 0,
      cpuS: 0,
      validated: 0,
      refuted: 0,
      answers: [],
    };
    const predictedBefore = llm.stats().predictions;
    const cpuAt = process.cpuUsage();
    for (const prompt of workload.prompts) {
      const startedAt = performance.now();
      let firstAt: number | undefined;
      let text = '';
      let usage: (OpenAI.CompletionUsage & { prompt_tokens_details?: { cached_tokens?: number } }) | undefined;
      const stream = await openai.chat.completions.create({
        model: llm.model,
        messages: [{ role: 'user', content: prompt.text }],
        max_tokens: prompt.maxTokens,
        temperature: 0,
        seed,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of stream) {
        const piece = chunk.choices[0]?.delta.content;
        if (piece) {
          firstAt ??= performance.now();
          text += piece;
        }
        usage = chunk.usage ?? usage;
      }
      const endedAt = performance.now();
      row.firstTokenS += ((firstAt ?? endedAt) - startedAt) / 1000;
      row.generatingS += (endedAt - (firstAt ?? endedAt)) / 1000;
      row.wallS += (endedAt - startedAt) / 1000;
      row.promptTokens += usage!.prompt_tokens;
      row.cachedTokens += usage!.prompt_tokens_details?.cached_tokens ?? 0;
      row.completionTokens += usage!.completion_tokens;
      row.answers.push(text);
      console.error(
        `${way.name} · ${workload.name}: ${usage!.prompt_tokens} prompt tokens (${usage!.prompt_tokens_details?.cached_tokens ?? 0} cached), ` +
          `${usage!.completion_tokens} completion tokens in ${((endedAt - startedAt) / 1000).toFixed(1)} s`,
      );
    }
    const cpu = process.cpuUsage(cpuAt);
    row.cpuS = (cpu.user + cpu.system) / 1e6;
    const predicted = llm.stats().predictions;
    row.validated = predicted.validated - predictedBefore.validated;
    row.refuted = predicted.refuted - predictedBefore.refuted;
    rows.push(row);
  }
  await llm.close();
}

console.log(
  '| workload | way | prompt tokens | from cache | to first token s | completion tokens | generating tok/s | wall s | vs off | CPU s | vs off | predicted: agreed / refuted | answers as off |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|');
for (const row of rows) {
  const first = rows.find((r) => r.workload === row.workload)!;
  // Generating speed after each answer's first token: the first one comes with the prompt's reading.
  const generated = row.completionTokens - row.answers.length;
  console.log(
    `| ${row.workload} | ${row.way} | ${row.promptTokens} | ${row.cachedTokens} | ${row.firstTokenS.toFixed(1)} | ${row.completionTokens} | ` +
      `${(generated / Math.max(row.generatingS, 1e-9)).toFixed(1)} | ${row.wallS.toFixed(1)} | ${(first.wallS / row.wallS).toFixed(2)}× | ` +
      `${row.cpuS.toFixed(1)} | ${(first.cpuS / row.cpuS).toFixed(2)}× | ` +
      `${row.validated} / ${row.refuted} | ${row.answers.every((a, i) => a === first.answers[i]) ? 'identical' : 'DIFFERENT'} |`,
  );
}
console.log(`\nLoad average at the end: ${loadavg()[0]!.toFixed(1)}.`);
