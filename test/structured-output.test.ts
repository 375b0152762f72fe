import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities, type GotActivities, type LlmStep, type LlmStepResult } from '../activities';
import { LlmClient } from '../src/llm/client';
import { LlmSettings } from '../src/run/request';
import { startSimulatedLlm } from '../src/simllm/server';
import { type AnswerSchema, type JsonSchema, strictProblems, withoutLengthBounds } from '../src/tasks/answer-schema';
import { docMergeTask } from '../src/tasks/doc-merge';
import { game24Task } from '../src/tasks/game-of-24';
import { keywordCountingTask } from '../src/tasks/keyword-counting';
import { TASKS } from '../src/tasks/registry';
import { setIntersectionTask } from '../src/tasks/set-intersection';
import { sortingTask } from '../src/tasks/sorting';
import type { AnyTask, ParsedThought, PromptRequest } from '../src/tasks/task';

// Decision 65: answers in the task's shape, sent as OpenAI's strict structured output.

const BUILT_IN = ['sorting', 'set-intersection', 'keyword-counting', 'doc-merge', 'game-of-24'];
const request = (prompt: string, thoughts: Record<string, unknown>[] = [{}], params: Record<string, unknown> = {}, problem?: unknown) =>
  ({ prompt, params, thoughts, problem }) as PromptRequest;

describe('answer schemas', () => {
  it.each(BUILT_IN)('%s: every prompt has a schema strict mode accepts', (id) => {
    const task = TASKS[id]!;
    for (const prompt of task.prompts) {
      const schema = task.answerSchema?.(request(prompt, [{}], { parts: 3 }));
      expect(schema, `${id}.${prompt}`).toBeDefined();
      expect(schema!.name).toMatch(/^[\w-]{1,64}$/);
      expect(strictProblems(schema!.schema), `${id}.${prompt}`).toEqual([]);
    }
    for (const [name, scorer] of Object.entries(task.llmScorers ?? {})) {
      expect(scorer.ratingsSchema, `${id} scorer ${name}`).toBeDefined();
      expect(strictProblems(scorer.ratingsSchema!.schema)).toEqual([]);
    }
  });

  it('the rules of strict mode are checked', () => {
    expect(strictProblems({ type: 'array', items: { type: 'integer' } })).toContain('$: the root must be an object');
    expect(strictProblems({ type: 'object', properties: { a: { type: 'string' } }, required: [] })).toEqual([
      '$: additionalProperties must be false',
      '$.a: every property must be required',
    ]);
  });

  it('a split asks for one key per part, as the split prompt does; CoT reasons before its output', () => {
    const split = sortingTask.answerSchema!(request('split', [{}], { parts: 4 }))!.schema;
    expect(split.required).toEqual(['List 1', 'List 2', 'List 3', 'List 4']);
    expect(sortingTask.answerSchema!(request('sortCot'))!.schema.required).toEqual(['reasoning', 'output']);
    expect(keywordCountingTask.answerSchema!(request('split', [{}], { parts: 2 }))!.schema.required).toEqual(['Passage 1', 'Passage 2']);
    expect(docMergeTask.answerSchema!(request('mergeCot'))!.schema.required).toEqual(['notes', 'merged']);
  });
});

/** Parsed thoughts without where their structure closed (that differs between a JSON and a text answer). */
const thoughts = (parsed: ParsedThought[]) => parsed.map(({ end: _end, ...t }) => t);

/** Whether a value has the schema's keys, recursively (enough to see that the example answers are in the schema's shape). */
function fits(value: unknown, schema: Record<string, unknown>): boolean {
  if (schema.type === 'object') {
    const props = schema.properties as Record<string, Record<string, unknown>>;
    return (
      !!value &&
      typeof value === 'object' &&
      Object.keys(props).every((k) => k in (value as object) && fits((value as Record<string, unknown>)[k], props[k]!)) &&
      Object.keys(value as object).every((k) => k in props)
    );
  }
  if (schema.type === 'array') return Array.isArray(value) && value.every((v) => fits(v, schema.items as Record<string, unknown>));
  if (schema.type === 'integer') return Number.isInteger(value);
  if (schema.type === 'number') return typeof value === 'number';
  return typeof value === 'string' && (!schema.enum || (schema.enum as unknown[]).includes(value));
}

const NDA =
  'The Recipient shall keep all Confidential Information secret for five years. Disclosure to third parties requires written consent.';
const DOCS = { documents: [NDA, NDA] };

/** A free-text answer and the same answer as the prompt's schema asks for it. */
const PAIRS: { task: AnyTask; req: PromptRequest; text: string; json: unknown }[] = [
  {
    task: sortingTask,
    req: request('sort', [{ unsorted: [3, 1, 2], list: [3, 1, 2] }]),
    text: 'Output: [1, 2, 3]',
    json: { output: [1, 2, 3] },
  },
  {
    task: sortingTask,
    req: request('sortCot', [{ unsorted: [3, 1, 2], list: [3, 1, 2] }]),
    text: 'Sublists: [3, 1], [2]\nOutput: [1, 2, 3]',
    json: { reasoning: 'Sublists: [3, 1], [2]; sorted: [1, 3], [2]', output: [1, 2, 3] },
  },
  {
    task: sortingTask,
    req: request('split', [{ unsorted: [3, 1, 2, 0], list: [3, 1, 2, 0] }], { parts: 2 }),
    text: 'List 1: [3, 1]\nList 2: [2, 0]',
    json: { 'List 1': [3, 1], 'List 2': [2, 0] },
  },
  {
    task: sortingTask,
    req: request('merge', [
      { unsorted: [1, 3], list: [1, 3] },
      { unsorted: [2], list: [2] },
    ]),
    text: 'Merged: [1, 2, 3]',
    json: { output: [1, 2, 3] },
  },
  {
    task: setIntersectionTask,
    req: request('intersect', [{ set1: [1, 2, 3], subset: [3, 4, 1] }]),
    text: 'The shared numbers: [3, 1]',
    json: { output: [3, 1] },
  },
  {
    task: setIntersectionTask,
    req: request('improve', [{ set1: [1, 2, 3], subset: [3, 4, 1], result: [3] }]),
    text: 'Reason: 1 is missing.\nOutput: [3, 1]',
    json: { reasoning: '1 is missing.', output: [3, 1] },
  },
  {
    task: keywordCountingTask,
    req: request('count', [{ text: 'Peru and Chile. Peru again.' }]),
    text: 'Output: {"Peru": 2, "Chile": 1}',
    json: {
      output: [
        { country: 'Peru', count: 2 },
        { country: 'Chile', count: 1 },
      ],
    },
  },
  {
    task: keywordCountingTask,
    req: request('split', [{ text: 'Peru and Chile. Peru again.' }], { parts: 2 }),
    text: 'Output:\n{"Passage 1": "Peru and Chile.", "Passage 2": "Peru again."}',
    json: { 'Passage 1': 'Peru and Chile.', 'Passage 2': 'Peru again.' },
  },
  {
    task: docMergeTask,
    req: request('merge', [{ documents: [0, 1] }], {}, DOCS),
    text: `<Merged>\n${NDA}\n</Merged>`,
    json: { merged: NDA },
  },
  {
    task: docMergeTask,
    req: request('mergeCot', [{ documents: [0, 1] }], {}, DOCS),
    text: `Both say the same.\n<Merged>${NDA}</Merged>`,
    json: { notes: 'Both say the same.', merged: NDA },
  },
  {
    task: game24Task,
    req: request('propose', [{ left: [3, 5, 9, 12], steps: [] }]),
    text: '3 + 5 = 8 (left: 8 9 12)\n12 / 3 = 4 (left: 4 5 9)',
    json: {
      steps: [
        { a: 3, op: '+', b: 5, result: 8, left: [8, 9, 12] },
        { a: 12, op: '/', b: 3, result: 4, left: [4, 5, 9] },
      ],
    },
  },
  {
    task: game24Task,
    req: request('answer', [{ left: [24], steps: [] }], {}, { numbers: [1, 2, 3, 4] }),
    text: 'Answer: (4 * 3) * 2 * 1 = 24',
    json: { expression: '(4 * 3) * 2 * 1' },
  },
];

describe('JSON answers parse to the thoughts their free text gives', () => {
  it.each(PAIRS.map((p, i) => ({ ...p, name: `${p.task.id}.${p.req.prompt} #${i}` })))('$name', ({ task, req, text, json }) => {
    expect(fits(json, task.answerSchema!(req)!.schema)).toBe(true);
    const fromText = thoughts(task.parseResponse(req, text));
    expect(fromText.every((t) => t.valid)).toBe(true);
    expect(thoughts(task.parseResponse(req, JSON.stringify(json)))).toEqual(fromText);
    // Pretty-printed and in a fence, as some endpoints return it.
    expect(thoughts(task.parseResponse(req, `\`\`\`json\n${JSON.stringify(json, null, 2)}\n\`\`\``))).toEqual(fromText);
  });

  it('ratings: the judges read their JSON as they read their text', () => {
    const judge = docMergeTask.llmScorers!.judge!;
    expect(judge.parseRatings('{"redundancy": 7, "retained": 9}')).toEqual(
      judge.parseRatings('<Redundancy>7</Redundancy>\n<Retained>9</Retained>'),
    );
    expect(judge.parseRatings('{"redundancy": 12, "retained": 9}')).toBeUndefined();
    const value = game24Task.llmScorers!.value!;
    expect(value.parseRatings('{"reasoning": "4 * 6 = 24, likely not needed", "judgement": "sure"}')).toEqual(
      value.parseRatings('4 * 6 = 24\nsure'),
    );
  });
});

/**
 * A fake OpenAI-compatible endpoint: records each body; refuses `response_format` for the models
 * named, as a 400 or in words, or (`bounds`) only a schema with list length bounds, as OpenAI words it.
 */
async function fakeEndpoint(refuse: Record<string, 'param' | 'message' | 'bounds'>) {
  const bodies: Record<string, unknown>[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    bodies.push(body);
    const how = refuse[body.model as string];
    const bounded = /"m(in|ax)Items"/.test(JSON.stringify(body.response_format ?? {}));
    if (how && 'response_format' in body && (how !== 'bounds' || bounded)) {
      res.writeHead(400, { 'content-type': 'application/json' });
      const error =
        how === 'bounds'
          ? {
              message:
                "Invalid schema for response_format 'sorting_sort': In context=('properties', 'output'), 'minItems' is not permitted.",
              param: 'response_format',
            }
          : how === 'param'
            ? {
                message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
                param: 'response_format',
              }
            : { message: 'json_schema response format is not supported by this server', param: null };
      return res.end(JSON.stringify({ error: { ...error, type: 'invalid_request_error', code: null } }));
    }
    const content = 'response_format' in body ? '{"output": [1, 2, 3]}' : 'Output: [1, 2, 3]';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const SORT = sortingTask.answerSchema!(request('sort', [sortingTask.rootState({ list: [3, 1, 2] })]))!;
const ask = (client: LlmClient, model: string, responseFormat?: AnswerSchema) =>
  client.complete({
    model,
    messages: [{ role: 'user', content: 'sort [3, 1, 2]' }],
    samples: 1,
    temperature: 1,
    seed: 1,
    ...(responseFormat ? { responseFormat } : {}),
  });

describe('the client asks for structured output', () => {
  let endpoint: Awaited<ReturnType<typeof fakeEndpoint>>;
  beforeAll(async () => {
    endpoint = await fakeEndpoint({ strict: 'param', worded: 'message', nobounds: 'bounds' });
  });
  afterAll(() => endpoint.close());

  it("sends the schema as OpenAI's strict json_schema response format when asked, and nothing when not", async () => {
    const client = new LlmClient({ baseURL: endpoint.baseURL, apiKey: 'k', supportsN: true });
    endpoint.bodies.length = 0;
    expect((await ask(client, 'good', SORT)).texts).toEqual(['{"output": [1, 2, 3]}']);
    expect(endpoint.bodies[0]!.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: SORT.name, schema: SORT.schema, strict: true },
    });
    await ask(client, 'good');
    expect(endpoint.bodies[1]).not.toHaveProperty('response_format');
    expect(client.adaptationsOf('good').textAnswersOnly).toBe(false);
  });

  it.each(['strict', 'worded'])(
    'a refusal (%s) is learnt per model: asked again without bounds, then as text, then text from the start',
    async (model) => {
      const client = new LlmClient({ baseURL: endpoint.baseURL, apiKey: 'k', supportsN: true });
      endpoint.bodies.length = 0;
      expect((await ask(client, model, SORT)).texts).toEqual(['Output: [1, 2, 3]']);
      // The sort schema bounds its list (decision 85): first the schema without bounds, then text.
      expect(endpoint.bodies.map((b) => 'response_format' in b)).toEqual([true, true, false]);
      expect(client.adaptationsOf(model).textAnswersOnly).toBe(true);
      await ask(client, model, SORT);
      expect(endpoint.bodies.map((b) => 'response_format' in b)).toEqual([true, true, false, false]);
      // Another model on the same endpoint is still asked for its schema.
      await ask(client, 'good', SORT);
      expect(endpoint.bodies.at(-1)).toHaveProperty('response_format');
    },
  );
});

describe('list length bounds (decision 85)', () => {
  let endpoint: Awaited<ReturnType<typeof fakeEndpoint>>;
  beforeAll(async () => {
    endpoint = await fakeEndpoint({ nobounds: 'bounds' });
  });
  afterAll(() => endpoint.close());

  it('are sent with the schema; an endpoint that refuses only them gets the schema without them from then on, and still answers in JSON', async () => {
    expect((SORT.schema.properties as Record<string, JsonSchema>).output).toMatchObject({ minItems: 3, maxItems: 3 });
    const client = new LlmClient({ baseURL: endpoint.baseURL, apiKey: 'k', supportsN: true });
    endpoint.bodies.length = 0;
    expect((await ask(client, 'nobounds', SORT)).texts).toEqual(['{"output": [1, 2, 3]}']);
    const schemas = endpoint.bodies.map((b) => (b.response_format as { json_schema: { schema: JsonSchema } }).json_schema.schema);
    expect(schemas).toEqual([SORT.schema, withoutLengthBounds(SORT.schema)]);
    expect(client.adaptationsOf('nobounds')).toMatchObject({ unboundedLists: true, textAnswersOnly: false });
    await ask(client, 'nobounds', SORT);
    expect(endpoint.bodies).toHaveLength(3);
    expect((endpoint.bodies[2]!.response_format as { json_schema: { schema: JsonSchema } }).json_schema.schema).toEqual(
      withoutLengthBounds(SORT.schema),
    );
  });

  it('say what the task knows of each list: a sorting or a split part exactly its length, an intersection at most the smaller set', () => {
    const list = Array.from({ length: 33 }, (_, i) => i % 10);
    const root = sortingTask.rootState({ list });
    const output = (schema: AnswerSchema | undefined) => (schema!.schema.properties as Record<string, JsonSchema>).output;
    const sorting = (prompt: string, thoughts = [root], params = {}) =>
      sortingTask.answerSchema!({ prompt, params, thoughts, problem: { list } });
    expect(output(sorting('sort'))).toMatchObject({ minItems: 33, maxItems: 33 });
    expect(output(sorting('improve'))).toMatchObject({ minItems: 33, maxItems: 33 });
    const a = { unsorted: [3, 1], list: [1, 3] };
    const b = { unsorted: [2, 2, 0], list: [0, 2, 2] };
    expect(output(sorting('merge', [a, b]))).toMatchObject({ minItems: 5, maxItems: 5 });
    const split = sorting('split', [root], { parts: 2 })!.schema.properties as Record<string, JsonSchema>;
    expect([split['List 1'], split['List 2']]).toMatchObject([
      { minItems: 17, maxItems: 17 },
      { minItems: 16, maxItems: 16 },
    ]);
    const set1 = [1, 2, 3];
    const set2 = [2, 3, 4, 5, 6, 7, 8, 9];
    const intersect = setIntersectionTask.answerSchema!({
      prompt: 'intersect',
      params: {},
      thoughts: [setIntersectionTask.rootState({ set1, set2 })],
      problem: { set1, set2 },
    });
    expect(output(intersect)).toEqual({ type: 'array', items: { type: 'integer' }, maxItems: 3 });
  });
});

describe('llm.structuredOutput in the LLM step', () => {
  const env = () => new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR') });
  const step = (structuredOutput: 'auto' | 'off' | undefined, o: Partial<LlmStep> = {}): LlmStep => {
    const llm = LlmSettings.parse({});
    return {
      task: 'sorting',
      purpose: 'generate',
      prompt: 'sort',
      params: {},
      thoughts: [sortingTask.rootState({ list: [3, 1, 2] })],
      problem: { list: [3, 1, 2] },
      samples: 1,
      // A step recorded before the setting existed has none: it asks for text.
      llm: structuredOutput ? { ...llm, structuredOutput } : (({ structuredOutput: _, ...rest }) => rest as LlmSettings)(llm),
      seed: 1,
      ...o,
    };
  };
  let endpoint: Awaited<ReturnType<typeof fakeEndpoint>>;
  let activities: GotActivities;
  beforeAll(async () => {
    endpoint = await fakeEndpoint({});
    activities = createActivities({ llm: new LlmClient({ baseURL: endpoint.baseURL, apiKey: 'k', supportsN: true }) });
  });
  afterAll(() => endpoint.close());
  const call = (s: LlmStep) => env().run<[LlmStep], LlmStepResult, GotActivities['callLlm']>(activities.callLlm, s);

  it('the default asks for text; auto sends the prompt schema; off and steps recorded before it send none', async () => {
    expect(LlmSettings.parse({}).structuredOutput).toBe('off');
    endpoint.bodies.length = 0;
    for (const mode of ['off', 'auto', undefined] as const) {
      const result = await call(step(mode));
      expect(result.answers[0]![0]).toMatchObject({ valid: true, state: { list: [1, 2, 3] } });
      // Where the structure closed is the engine's business: it is not recorded with the thought.
      expect(result.answers[0]![0]).not.toHaveProperty('end');
    }
    expect(endpoint.bodies.map((b) => (b.response_format as { json_schema?: { name: string } } | undefined)?.json_schema?.name)).toEqual([
      undefined,
      'sorting_sort',
      undefined,
    ]);
  });
});

describe('the simulator answers in the schema when asked', () => {
  it.each([
    { task: sortingTask, prompt: 'sort', problem: { list: [5, 1, 4, 2, 3, 0, 9, 8] } },
    { task: setIntersectionTask, prompt: 'intersect', problem: { set1: [1, 2, 3, 4], set2: [4, 5, 1, 7] } },
    { task: keywordCountingTask, prompt: 'count', problem: keywordCountingTask.generateProblem(4, 1) },
    { task: docMergeTask, prompt: 'merge', problem: docMergeTask.generateProblem(4, 1) },
    { task: game24Task, prompt: 'propose', problem: { numbers: [4, 6, 1, 1] } },
  ] as { task: AnyTask; prompt: string; problem: unknown }[])('$task.id $prompt', async ({ task, prompt, problem }) => {
    const sim = await startSimulatedLlm({ seed: 3 });
    try {
      const client = new LlmClient({ baseURL: sim.baseURL, apiKey: 'x', supportsN: true });
      const req = { prompt, params: {}, thoughts: [task.rootState(problem)], problem };
      const schema = task.answerSchema!(req)!;
      const completion = await client.complete({
        model: 'sim-got-1',
        messages: task.buildPrompt(req),
        samples: 4,
        temperature: 1,
        seed: 1,
        responseFormat: schema,
      });
      const json = completion.texts.filter((t) => t.startsWith('{'));
      expect(json.length).toBeGreaterThan(0);
      for (const text of json) {
        expect(fits(JSON.parse(text), schema.schema)).toBe(true);
        expect(task.parseResponse(req, text).every((t) => t.valid)).toBe(true);
      }
    } finally {
      await sim.close();
    }
  });
});
