/**
 * Structured output on the local model server: `response_format` turned into a grammar that holds
 * every generated token to the schema, on the real default model (SmolLM2-135M, too weak to write
 * JSON of a given shape unaided), and the schemas the grammar cannot enforce refused up front.
 */
import OpenAI, { BadRequestError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toGrammarSchema } from '../src/localllm/grammar';
import { ensureLocalModel, LOCAL_MODEL_ENV } from '../src/localllm/model';
import { parseChatRequest } from '../src/localllm/request';
import { type LocalLlm, startLocalLlm } from '../src/localllm/server';

const integers = {
  type: 'object',
  properties: { output: { type: 'array', items: { type: 'integer' } } },
  required: ['output'],
  additionalProperties: false,
};
const sortFormat = { type: 'json_schema' as const, json_schema: { name: 'sorted', schema: integers, strict: true } };

/** Whether `value` is `{ output: integer[] }` and nothing else. */
const followsIntegers = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  Object.keys(value).join() === 'output' &&
  Array.isArray((value as { output: unknown }).output) &&
  (value as { output: unknown[] }).output.every(Number.isInteger);

describe('which schemas become a grammar', () => {
  const refusal = (schema: Record<string, unknown>) => {
    try {
      toGrammarSchema(schema);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('takes the JSON Schema subset node-llama-cpp enforces, reading anyOf as oneOf', () => {
    expect(refusal(integers)).toBeUndefined();
    expect(
      toGrammarSchema({
        type: 'object',
        title: 'Answer',
        properties: {
          reasoning: { type: 'string', description: 'why', maxLength: 400 },
          kind: { enum: ['a', 'b', null] },
          when: { type: 'string', format: 'date' },
          pair: { type: 'array', prefixItems: [{ type: 'number' }, { type: ['string', 'null'] }], minItems: 2, maxItems: 2 },
          either: { anyOf: [{ type: 'integer' }, { $ref: '#/$defs/point' }] },
        },
        $defs: { point: { type: 'object', properties: { x: { const: 1 } } } },
      }),
    ).toMatchObject({
      properties: { either: { oneOf: [{ type: 'integer' }, { $ref: '#/$defs/point' }] }, reasoning: { type: 'string', maxLength: 400 } },
    });
  });

  it('refuses what the grammar would silently drop, naming the place and the keyword', () => {
    expect(refusal({ type: 'object', properties: { n: { type: 'integer', minimum: 0 } } })).toBe(
      `schema.properties.n: node-llama-cpp's grammar cannot enforce "minimum"`,
    );
    expect(refusal({ type: 'string', pattern: '^a' })).toMatch(/"pattern"/);
    expect(refusal({ type: 'string', minItems: 1 })).toBe(`schema: node-llama-cpp's grammar cannot enforce "minItems" on a string`);
    expect(refusal({ type: 'object', properties: { a: {} } })).toMatch(/^schema\.properties\.a: a schema needs a "type"/);
    expect(refusal({ allOf: [{ type: 'string' }] })).toBe(`schema: node-llama-cpp's grammar cannot enforce "allOf"`);
    expect(refusal({ type: ['object', 'null'] })).toMatch(/write objects and arrays as anyOf/);
    expect(refusal({ type: 'string', format: 'email' })).toMatch(/^schema\.format: only the formats/);
    expect(refusal({ $ref: '#/definitions/x', definitions: { x: { type: 'string' } } })).toMatch(/\$defs/);
    expect(refusal({ $ref: '#/$defs/missing' })).toMatch(/"missing" is not defined/);
    expect(refusal({ type: 'object', properties: {}, required: ['a'] })).toMatch(/requires "a"/);
    expect(refusal({ type: 'integer', anyOf: [{ type: 'integer' }] })).toMatch(/ignores "type" beside "anyOf"/);
  });

  it('reads response_format from a request', () => {
    const base = { messages: [{ role: 'user', content: 'hi' }] };
    expect(parseChatRequest(JSON.stringify(base)).responseFormat).toEqual({ type: 'text' });
    expect(parseChatRequest(JSON.stringify({ ...base, response_format: { type: 'json_object' } })).responseFormat).toEqual({
      type: 'json_object',
    });
    expect(parseChatRequest(JSON.stringify({ ...base, response_format: sortFormat })).responseFormat).toEqual({
      type: 'json_schema',
      name: 'sorted',
      schema: integers,
    });
    expect(() => parseChatRequest(JSON.stringify({ ...base, response_format: { type: 'yaml' } }))).toThrow(/response_format/);
  });
});

describe('structured output (SmolLM2-135M)', () => {
  let llm: LocalLlm;
  let openai: OpenAI;

  beforeAll(async () => {
    const modelPath = await ensureLocalModel({ env: { ...process.env, [LOCAL_MODEL_ENV]: '' }, log: (line) => console.log(line) });
    llm = await startLocalLlm({ modelPath, port: 0, contextSize: 2048, parallel: 2, batch: 4 });
    openai = new OpenAI({ baseURL: llm.baseURL, apiKey: 'unused', maxRetries: 0 });
  });
  afterAll(async () => {
    await llm?.close();
  });

  const sortRequest = {
    messages: [{ role: 'user' as const, content: 'Sort these numbers: 5, 3, 9, 1. Answer in JSON.' }],
    max_tokens: 60,
    temperature: 1,
    seed: 9,
  };

  it('answers n = 3 choices that each parse and follow a json_schema', async () => {
    const completion = await openai.chat.completions.create({ model: llm.model, ...sortRequest, n: 3, response_format: sortFormat });
    expect(completion.choices).toHaveLength(3);
    for (const choice of completion.choices) {
      expect(choice.finish_reason).toBe('stop');
      expect(followsIntegers(JSON.parse(choice.message.content!))).toBe(true);
    }
  });

  it('streams structured choices of n = 2 that parse once assembled', async () => {
    const stream = await openai.chat.completions.create({
      model: llm.model,
      ...sortRequest,
      n: 2,
      response_format: sortFormat,
      stream: true,
    });
    const texts = ['', ''];
    for await (const chunk of stream) for (const c of chunk.choices) texts[c.index] += c.delta.content ?? '';
    for (const text of texts) expect(followsIntegers(JSON.parse(text))).toBe(true);
  });

  it('answers json_object with a JSON object', async () => {
    const completion = await openai.chat.completions.create({
      model: llm.model,
      ...sortRequest,
      response_format: { type: 'json_object' },
    });
    const choice = completion.choices[0]!;
    if (choice.finish_reason === 'stop') expect(JSON.parse(choice.message.content!)).toBeTypeOf('object');
    else expect(choice.message.content!.trimStart().startsWith('{')).toBe(true);
  });

  it('still stops at max_tokens under a grammar, with finish_reason length', async () => {
    const completion = await openai.chat.completions.create({
      model: llm.model,
      messages: [{ role: 'user', content: 'Write a long story.' }],
      max_tokens: 5,
      n: 2,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'story', schema: { type: 'object', properties: { story: { type: 'string' } }, required: ['story'] } },
      },
    });
    for (const choice of completion.choices) {
      expect(choice.finish_reason).toBe('length');
      expect(choice.message.content!.startsWith('{')).toBe(true);
    }
    expect(completion.usage!.completion_tokens).toBe(10);
  });

  it('refuses a schema it cannot enforce with a 400 on response_format, before generating', async () => {
    const before = llm.stats();
    const error = await openai.chat.completions
      .create({
        model: llm.model,
        ...sortRequest,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'bounded', schema: { type: 'object', properties: { n: { type: 'integer', maximum: 3 } } } },
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    const bad = error as BadRequestError;
    expect(bad.param).toBe('response_format');
    expect(bad.code).toBe('invalid_json_schema');
    expect(bad.message).toContain(`response_format.json_schema.schema.properties.n: node-llama-cpp's grammar cannot enforce "maximum"`);
    expect(llm.stats().completionTokens).toBe(before.completionTokens);
  });
});
