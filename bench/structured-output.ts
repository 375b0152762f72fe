/**
 * Usable answers with and without structured output (decisions 65, 66), on the local model server:
 * each task's main prompt asked `k` times as text (`llm.structuredOutput: off`) and with the prompt's
 * JSON Schema (`auto`), each answer read exactly as a run reads it (`activities/read-answer.ts`).
 * Not part of `npm run bench` (it needs a model):
 * `npx tsx bench/structured-output.ts [--model smollm2-135m] [--k 4] [--seed 1] [--tasks sorting,doc-merge] [--answers out.jsonl]`.
 * Prints a Markdown table and the machine line.
 */
import { appendFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseAnswer } from '../activities/read-answer';
import { LlmClient } from '../src/llm/client';
import { estimateTokens } from '../src/llm/context-windows';
import { builtInModel, servedContextSize } from '../src/localllm/models';
import { startLocalModel } from '../src/localllm/start';
import { TASKS } from '../src/tasks/registry';
import type { PromptRequest } from '../src/tasks/task';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const k = Number(arg('--k', '4'));
const seed = Number(arg('--seed', '1'));
/** `--answers <file>`: every answer as a JSON line, to see what the model wrote. */
const answersFile = process.argv.includes('--answers') ? arg('--answers', '') : undefined;

/** Each task's main prompt, the problem size it is asked at, and enough answer tokens for it. */
const MAIN = [
  { task: 'sorting', prompt: 'sort', size: 32, maxTokens: 256 },
  { task: 'set-intersection', prompt: 'intersect', size: 32, maxTokens: 256 },
  { task: 'keyword-counting', prompt: 'count', size: 4, maxTokens: 256 },
  { task: 'doc-merge', prompt: 'merge', size: 4, maxTokens: 1024 },
  { task: 'game-of-24', prompt: 'propose', size: 4, maxTokens: 192 },
];
const only = arg('--tasks', MAIN.map((m) => m.task).join(',')).split(',');

const model = builtInModel(arg('--model', 'smollm2-135m'));
const started = await startLocalModel(console.error, { kind: 'built-in', model });
const client = new LlmClient(started.endpoint);
const served = started.llm.model;
console.log(
  `Structured output on ${model.name} (local server, streamed), ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; load average at start ${loadavg()[0]!.toFixed(1)}.`,
);
console.log(`k = ${k} answers per prompt and mode (one request, n = k), temperature 1, seed ${seed}.\n`);
console.log('| task | prompt | mode | usable | JSON answers | cut at max tokens | solved | s |');
console.log('|---|---|---|---|---|---|---|---|');

let refused = false;
const window = servedContextSize({ kind: 'built-in', model });

/**
 * A doc-merge problem whose merge prompt leaves room for the answer in the served window: the
 * paper's four NDAs fit Qwen's 8K, not SmolLM2's 2K, where fewer documents, cut at a paragraph, are merged.
 */
function fitting(taskId: string, problem: unknown, maxTokens: number): { problem: unknown; note: string } {
  if (taskId !== 'doc-merge') return { problem, note: '' };
  let documents = [...(problem as { documents: string[] }).documents];
  const room = () => window - maxTokens - 400 - estimateTokens(documents.join('\n'));
  while (room() < 0 && documents.length > 2) documents = documents.slice(0, -1);
  while (room() < 0) documents = documents.map((d) => d.slice(0, Math.max(200, d.lastIndexOf('\n\n', d.length * 0.8))));
  const whole = (problem as { documents: string[] }).documents;
  return {
    problem: { documents },
    note:
      documents.length < whole.length || documents.join('').length < whole.join('').length
        ? ` (${documents.length} NDAs, cut to fit ${window} tokens)`
        : '',
  };
}
try {
  for (const m of MAIN.filter((x) => only.includes(x.task))) {
    const task = TASKS[m.task]!;
    const fitted = fitting(m.task, task.generateProblem(m.size, seed), m.maxTokens);
    const problem = fitted.problem;
    const req: PromptRequest = { prompt: m.prompt, params: {}, thoughts: [task.rootState(problem)], problem };
    for (const mode of ['off', 'auto'] as const) {
      const schema = mode === 'auto' ? task.answerSchema?.(req) : undefined;
      const t0 = performance.now();
      const completion = await client
        .complete({
          model: served,
          messages: task.buildPrompt(req),
          samples: k,
          temperature: 1,
          maxTokens: m.maxTokens,
          seed,
          ...(schema ? { responseFormat: schema } : {}),
        })
        .catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      if (completion instanceof Error) {
        console.log(`| ${m.task} | ${m.prompt}${fitted.note} | ${mode} | failed: ${completion.message.slice(0, 80)} | | | | |`);
        continue;
      }
      const seconds = (performance.now() - t0) / 1000;
      if (answersFile)
        for (const [i, text] of completion.texts.entries())
          appendFileSync(
            answersFile,
            `${JSON.stringify({ task: m.task, prompt: m.prompt, mode, finish: completion.finishReasons[i], text })}\n`,
          );
      refused ||= client.adaptationsOf(served).textAnswersOnly;
      const read = completion.texts.map((text, i) => parseAnswer(task, req, text, completion.finishReasons[i]!));
      const usable = read.filter((thoughts) => thoughts.some((t) => t.valid)).length;
      const json = completion.texts.filter((t) => t.trim().startsWith('{')).length;
      const cut = completion.finishReasons.filter((f) => f === 'length').length;
      const solved = task.groundTruth
        ? `${read.filter((thoughts) => thoughts.some((t) => t.valid && task.groundTruth!(t.state, problem))).length}/${k}`
        : '–';
      console.log(
        `| ${m.task} | ${m.prompt}${fitted.note} | ${mode} | ${usable}/${k} | ${json}/${k} | ${cut}/${k} | ${solved} | ${seconds.toFixed(0)} |`,
      );
    }
  }
} finally {
  await started.llm.close();
}
console.log(
  refused
    ? '\nThe server refused response_format: the `auto` rows were asked again as text (the client learnt it).'
    : '\nThe server took response_format (a schema it cannot enforce would have been refused with a 400).',
);
