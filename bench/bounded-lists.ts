/**
 * What list length bounds in the answer schema do on a local model (decision 85): the sort and split
 * prompts of sorting and set intersection asked `k` times each as text, with the schema without its
 * bounds, and with them (what `--structured-output auto` sends now), every answer read as a run reads
 * it. Sort and intersect: mean errors and answers of the right length; split: parts that are their
 * true slice. Not part of `npm run bench` (it needs a model):
 * `npx tsx bench/bounded-lists.ts [--model qwen2.5-coder-1.5b] [--k 4] [--seeds 1,2] [--size 32]`.
 */
import { cpus, loadavg } from 'node:os';
import { parseAnswer } from '../activities/read-answer';
import type { ThoughtState } from '../src/grs/types';
import { LlmClient } from '../src/llm/client';
import { builtInModel } from '../src/localllm/models';
import { startLocalModel } from '../src/localllm/start';
import { type AnswerSchema, withoutLengthBounds } from '../src/tasks/answer-schema';
import { TASKS } from '../src/tasks/registry';
import type { PromptRequest } from '../src/tasks/task';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const k = Number(arg('--k', '4'));
const seeds = arg('--seeds', '1,2').split(',').map(Number);
const size = Number(arg('--size', '32'));
const model = builtInModel(arg('--model', 'qwen2.5-coder-1.5b'));

/** Each task's one-list prompt, and the fields of a split part: its truth and what the model wrote. */
const CASES = [
  { task: 'sorting', answer: 'sort', truth: 'unsorted', written: 'list' },
  { task: 'set-intersection', answer: 'intersect', truth: 'subset', written: 'given' },
] as const;
const MODES = ['text', 'schema without bounds', 'schema with bounds'] as const;

const started = await startLocalModel(console.error, { kind: 'built-in', model });
const client = new LlmClient(started.endpoint);
console.log(
  `List bounds on ${model.name} (local server, grammar), ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model}; load ${loadavg()[0]!.toFixed(1)} at start. k = ${k} per prompt, seeds ${seeds.join(', ')}, lists of ${size}, temperature 1, 512 answer tokens.\n`,
);
console.log('| task | prompt | mode | answers read | right length | mean errors | split parts right | s |');
console.log('|---|---|---|---:|---:|---:|---:|---:|');
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
try {
  for (const c of CASES) {
    const task = TASKS[c.task]!;
    for (const prompt of [c.answer, 'split'] as const) {
      for (const mode of MODES) {
        let read = 0;
        let rightLength = 0;
        let errors = 0;
        let partsRight = 0;
        let parts = 0;
        let seconds = 0;
        for (const seed of seeds) {
          const problem = task.generateProblem(size, seed);
          const req: PromptRequest = { prompt, params: { parts: 2 }, thoughts: [task.rootState(problem)], problem };
          const schema = task.answerSchema!(req)!;
          const format: AnswerSchema | undefined =
            mode === 'text'
              ? undefined
              : mode === 'schema with bounds'
                ? schema
                : { ...schema, schema: withoutLengthBounds(schema.schema) };
          const t0 = performance.now();
          const completion = await client.complete({
            model: started.llm.model,
            messages: task.buildPrompt(req),
            samples: k,
            temperature: 1,
            maxTokens: 512,
            seed,
            ...(format ? { responseFormat: format } : {}),
          });
          seconds += (performance.now() - t0) / 1000;
          for (const [i, text] of completion.texts.entries()) {
            const thoughts = parseAnswer(task, req, text, completion.finishReasons[i]!).filter((t) => t.valid);
            if (thoughts.length === 0) continue;
            read++;
            if (prompt === 'split') {
              const got = thoughts.map((t) => t.state as ThoughtState);
              parts += 2;
              partsRight += got.filter((s) => same(s[c.written], s[c.truth])).length;
              continue;
            }
            const state = thoughts[0]!.state;
            const expected = c.task === 'sorting' ? size : undefined;
            const answer = (state.list ?? state.result) as unknown[] | undefined;
            if (expected === undefined || answer?.length === expected) rightLength++;
            errors += task.score!(state, problem);
          }
        }
        const n = k * seeds.length;
        const cells =
          prompt === 'split'
            ? ['–', '–', `${partsRight} of ${parts}`]
            : [c.task === 'sorting' ? `${rightLength}/${read}` : '–', read ? (errors / read).toFixed(1) : '–', '–'];
        console.log(`| ${c.task} | ${prompt} | ${mode} | ${read}/${n} | ${cells.join(' | ')} | ${seconds.toFixed(0)} |`);
      }
    }
  }
} finally {
  await started.llm.close();
}
