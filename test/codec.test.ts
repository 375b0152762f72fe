import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { resultOf, startRun } from '../src/client/runs';
import { AesGcmCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, PayloadDecryptionError } from '../src/codec/aes-gcm-codec';
import { codecFromEnv, dataConverterFromEnv } from '../src/codec/data-converter';
import { CodecKeyError, codecKeysFromEnv, generateCodecKey, parseCodecKeys } from '../src/codec/keys';
import { type CodecServer, codecServerOptionsFromEnv, startCodecServer } from '../src/codec/server';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import { inspectRun, rebuildGrs } from '../src/inspect/rebuild';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge';
import { bundleGotWorkflows } from '../worker/create';
import { failureOf } from './support/faults';
import { type Harness, startHarness } from './support/harness';

const { Payloads } = proto.temporal.api.common.v1;
const { History } = proto.temporal.api.history.v1;
type History = proto.temporal.api.history.v1.IHistory;

const utf8 = (b: Uint8Array | null | undefined) => Buffer.from(b ?? []).toString('utf8');
const jsonPayload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);

describe('the AES-256-GCM payload codec', () => {
  const k1 = generateCodecKey('k1');
  const k2 = generateCodecKey('k2');
  const codec = new AesGcmCodec(parseCodecKeys(k1));

  it('round-trips payloads, metadata included, and hides their bytes', async () => {
    const secret = { text: 'Opaline Research Group shall keep the confidential information strictly secret.' };
    const plain = [jsonPayload(secret), jsonPayload([1, 2, 3]), { metadata: { encoding: new TextEncoder().encode('binary/null') } }];
    const encoded = await codec.encode(plain);
    expect(encoded).toHaveLength(3);
    for (const p of encoded) {
      expect(utf8(p.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(Buffer.from(p.data!).includes(Buffer.from('Opaline'))).toBe(false);
      expect(Buffer.from(p.data!).includes(Buffer.from('json/plain'))).toBe(false);
    }
    const decoded = await codec.decode(encoded);
    expect(defaultPayloadConverter.fromPayload(decoded[0]!)).toEqual(secret);
    expect(defaultPayloadConverter.fromPayload(decoded[1]!)).toEqual([1, 2, 3]);
    expect(utf8(decoded[2]!.metadata!.encoding)).toBe('binary/null');
    // A fresh IV each time: the same plaintext never encrypts to the same bytes.
    const [again] = await codec.encode([plain[0]!]);
    expect(Buffer.from(again!.data!).equals(Buffer.from(encoded[0]!.data!))).toBe(false);
  });

  it('names the key in the metadata', async () => {
    const [p] = await new AesGcmCodec(parseCodecKeys(`${k2},${k1}`)).encode([jsonPayload('x')]);
    expect(utf8(p!.metadata![KEY_ID_METADATA])).toBe('k2');
    expect(Object.keys(p!.metadata!).sort()).toEqual([KEY_ID_METADATA, 'encoding'].sort());
  });

  it('detects tampering (GCM authentication tag)', async () => {
    const [p] = await codec.encode([jsonPayload({ amount: 100 })]);
    for (const at of [0, 12, p!.data!.length - 1]) {
      const data = Buffer.from(p!.data!);
      data[at] = data[at]! ^ 0x01;
      await expect(codec.decode([{ ...p!, data }])).rejects.toThrow(/key "k1": authentication failed/);
    }
    await expect(codec.decode([{ ...p!, data: p!.data!.subarray(0, 20) }])).rejects.toThrow(PayloadDecryptionError);
    // The same id but another key is caught the same way.
    const impostor = new AesGcmCodec(parseCodecKeys(generateCodecKey('k1')));
    await expect(impostor.decode([p!])).rejects.toThrow(/authentication failed/);
  });

  it('rotates by key id: payloads written under the old key still decode once a new active key is added', async () => {
    const [old] = await codec.encode([jsonPayload('written under k1')]);
    const rotated = new AesGcmCodec(parseCodecKeys(`${k2},${k1}`));
    expect(rotated.activeKeyId).toBe('k2');
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([old!]))[0]!)).toBe('written under k1');
    const [fresh] = await rotated.encode([jsonPayload('written under k2')]);
    expect(utf8(fresh!.metadata![KEY_ID_METADATA])).toBe('k2');
    // The old key alone cannot read what the new one wrote, and says which key is missing.
    await expect(codec.decode([fresh!])).rejects.toThrow(/key "k2": GOT_CODEC_KEYS has no key "k2" \(it has "k1"\)/);
  });

  it('passes payloads that were never encrypted through (runs from before encryption was on)', async () => {
    const plain = jsonPayload({ before: true });
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it('refuses an unknown key id, naming it', async () => {
    const [p] = await new AesGcmCodec(parseCodecKeys(generateCodecKey('retired-2024'))).encode([jsonPayload(1)]);
    const error = await codec.decode([p!]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadDecryptionError);
    expect((error as Error).message).toMatch(/encrypted with key "retired-2024"/);
    expect((error as Error).message).toMatch(/GOT_CODEC_KEYS/);
  });
});

describe('GOT_CODEC_KEYS', () => {
  const key = Buffer.alloc(32, 7).toString('base64');

  it('is optional: unset or blank means plain payloads', () => {
    expect(dataConverterFromEnv({ GOT_STORE: 'off' })).toBeUndefined();
    expect(dataConverterFromEnv({ GOT_STORE: 'off', GOT_CODEC_KEYS: '  ' })).toBeUndefined();
    // With the default store, payloads are stored (not encrypted) above the threshold.
    expect(dataConverterFromEnv({}) ?? {}).not.toHaveProperty('payloadCodecs');
    expect(dataConverterFromEnv({})?.externalStorage).toBeDefined();
    expect(codecKeysFromEnv({})).toBeUndefined();
  });

  it('makes the first key the active one and keeps all for decoding', () => {
    const keys = parseCodecKeys(`k2:${key}, k1:${Buffer.alloc(32, 1).toString('base64url')}`);
    expect(keys.active.id).toBe('k2');
    expect([...keys.byId.keys()]).toEqual(['k2', 'k1']);
    expect(keys.byId.get('k1')!.key.equals(Buffer.alloc(32, 1))).toBe(true);
    const converter = dataConverterFromEnv({ GOT_CODEC_KEYS: `k2:${key}` });
    expect(converter?.payloadCodecs).toHaveLength(1);
    expect((converter!.payloadCodecs![0] as AesGcmCodec).activeKeyId).toBe('k2');
  });

  it.each([
    ['a bare key without id', key, /entry 1 of 1 has no key id/],
    ['an empty entry', `k1:${key},`, /entry 2 of 2 is empty/],
    ['a short key', `k1:${Buffer.alloc(16).toString('base64')}`, /key "k1" is 16 bytes once decoded, not 32 \(AES-256\)/],
    ['a key that is not base64', 'k1:not base64!', /key "k1" is not base64/],
    ['a duplicate id', `k1:${key},k1:${key}`, /key id "k1" appears more than once/],
    ['an id that is not an id', `${key}:k1`, /entry 1 of 1 has an invalid key id/],
    ['no key after the id', 'k1:', /key "k1" has no key after the ":"/],
  ])('refuses %s, naming GOT_CODEC_KEYS and what is expected, never echoing a key', (_what, value, problem) => {
    const error = (() => {
      try {
        dataConverterFromEnv({ GOT_CODEC_KEYS: value });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(CodecKeyError);
    const message = (error as Error).message;
    expect(message).toMatch(/^GOT_CODEC_KEYS: /);
    expect(message).toMatch(problem);
    expect(message).toMatch(/expected a comma-separated list of <key id>:<base64 of 32 random bytes>/);
    expect(message).not.toContain(key);
  });
});

// ---------------------------------------------------------------------------------------------
// End to end: an encrypted doc-merge run on the real test server.

const SAMPLE = 13;
const problem = docMergeTask.generateProblem(4, SAMPLE);
const request = (scheme: 'io' | 'got'): RunRequestInput => ({
  task: 'doc-merge',
  problem,
  goo: docMergeTask.schemes[scheme]!({ size: 4 }),
  labels: { scheme, size: 4, sample: SAMPLE },
});

/** Distinctive sentences of a text: long enough that they cannot appear by chance. */
function sentencesOf(text: string, count: number): string[] {
  const all = [
    ...new Set(
      text
        .split(/(?<=[.!?])\s+|\n+/)
        .map((s) => s.trim())
        .filter((s) => s.length >= 40),
    ),
  ];
  if (all.length <= count) return all;
  return Array.from({ length: count }, (_, i) => all[Math.floor((i * (all.length - 1)) / (count - 1))]!);
}

/** Where a sentence occurs in raw bytes: as is, or as it reads inside a JSON string. */
function occurrences(bytes: Buffer, sentences: string[]): string[] {
  return sentences.filter((s) => bytes.includes(Buffer.from(s)) || bytes.includes(Buffer.from(JSON.stringify(s).slice(1, -1))));
}

/** Every payload of a history, with the path that leads to it; search attributes are indexed by the server and never go through codecs. */
function payloadsOf(value: unknown, path = '', out: { path: string; payload: Payload }[] = []): { path: string; payload: Payload }[] {
  if (!value || typeof value !== 'object' || value instanceof Uint8Array) return out;
  if (path.endsWith('searchAttributes')) return out;
  const v = value as Record<string, unknown>;
  if ('metadata' in v && v.metadata && typeof v.metadata === 'object' && 'encoding' in (v.metadata as object)) {
    out.push({ path, payload: v as Payload });
    return out;
  }
  for (const [k, child] of Object.entries(v)) payloadsOf(child, `${path}.${k}`, out);
  return out;
}

const rawBytes = (history: History) => Buffer.from(History.encode(history).finish());

describe('an encrypted run', () => {
  const keys = `${generateCodecKey('k2')},${generateCodecKey('k1')}`;
  const codec = codecFromEnv({ GOT_CODEC_KEYS: keys })!;
  let h: Harness;
  let plain: Harness;
  let rawClient: Client;
  let rawConnection: Connection;
  let bundle: Awaited<ReturnType<typeof bundleGotWorkflows>>;
  let server: CodecServer;
  let result: RunResult;
  let workflowId: string;
  let history: History;
  const AUTH = 'Bearer codec-test-token';

  beforeAll(async () => {
    [h, plain, bundle] = await Promise.all([
      startHarness({ dataConverter: { payloadCodecs: [codec] } }),
      startHarness(),
      bundleGotWorkflows(),
    ]);
    rawConnection = await Connection.connect({ address: inject('temporalAddress') });
    // A client without the codec sees what the server stores.
    rawClient = new Client({ connection: rawConnection });
    server = await startCodecServer({ codec, port: 0, corsOrigins: ['http://localhost:8233'], authorization: AUTH });
    const handle = await startRun(h.client, request('got'), { taskQueue: h.taskQueue });
    workflowId = handle.workflowId;
    result = await resultOf(handle);
    history = await rawClient.workflow.getHandle(workflowId).fetchHistory();
  });
  afterAll(async () => {
    await server?.close();
    await rawConnection?.close();
    await h?.close();
    await plain?.close();
  });

  const documentSentences = () => problem.documents.flatMap((d) => sentencesOf(d, 6));
  const thoughtSentences = () => [
    ...sentencesOf(docMergeTask.answerText(result.best!.state), 8),
    ...result.grs.thoughts.flatMap((t) => (typeof t.state.merged === 'string' ? sentencesOf(t.state.merged, 2) : [])),
  ];

  it('decodes its result through the client with the codec', () => {
    expect(result.grs.thoughts).toHaveLength(1 + 5 + 5 + 10);
    expect(result.best!.state.documents).toEqual([0, 1, 2, 3]);
    expect(docMergeTask.answerText(result.best!.state)).toMatch(/AGREEMENT/);
    expect(thoughtSentences().length).toBeGreaterThan(8);
  });

  it('stores no document sentence and no merged text in plain text on the server', () => {
    const bytes = rawBytes(history);
    expect(history.events!.length).toBeGreaterThan(20);
    const sentences = [...documentSentences(), ...thoughtSentences()];
    expect(sentences.length).toBeGreaterThan(30);
    expect(occurrences(bytes, sentences)).toEqual([]);
    // Nor any long stretch of a document: every 60-character window of each is absent.
    for (const d of problem.documents) {
      for (let at = 0; at + 60 <= d.length; at += 30) expect(bytes.includes(Buffer.from(d.slice(at, at + 60)))).toBe(false);
    }
    // Every payload (input, activity inputs and results, local activity markers, the result) is encrypted.
    const payloads = payloadsOf(history.events);
    // The exceptions: SDK Core writes a local activity marker's bookkeeping (`details.data`: seq,
    // attempt, activity id and type, times) itself, past the codec; the step's result (`details.result`) is encrypted.
    // Likewise a patch marker's data: the patch id and whether it is deprecated.
    const bookkeeping = ['seq', 'attempt', 'activity_id', 'activity_type', 'complete_time', 'backoff', 'original_schedule_time'];
    const keysOf = (p: Payload) => Object.keys(JSON.parse(utf8(p.data)) as object);
    const isMarkerBookkeeping = (p: { path: string; payload: Payload }) =>
      (/markerRecordedEventAttributes\.details\.data\.payloads\.\d+$/.test(p.path) &&
        keysOf(p.payload).every((k) => bookkeeping.includes(k))) ||
      (/markerRecordedEventAttributes\.details\.patch-data\.payloads\.\d+$/.test(p.path) &&
        keysOf(p.payload).every((k) => ['id', 'deprecated'].includes(k)));
    const clear = payloads
      .filter((p) => utf8(p.payload.metadata!.encoding) !== ENCRYPTED_ENCODING && !isMarkerBookkeeping(p))
      .map((p) => p.path);
    expect(clear).toEqual([]);
    const encrypted = payloads.filter((p) => utf8(p.payload.metadata!.encoding) === ENCRYPTED_ENCODING);
    expect(encrypted.length).toBeGreaterThan(40);
    expect(encrypted.some((p) => /markerRecordedEventAttributes\.details\.result/.test(p.path))).toBe(true);
    expect(new Set(encrypted.map((p) => utf8(p.payload.metadata![KEY_ID_METADATA])))).toEqual(new Set(['k2']));
  });

  it.each([
    ['a text body', 'text/plain', /got a text body of \d+ characters/],
    ['a body that is not JSON', 'application/json', /a body that is not JSON/],
  ])("keeps a broken endpoint's words out of the plain-text failures it stores (%s)", async (_what, contentType, said) => {
    // A proxy that answers with the start of the prompt, documents and all.
    const echoed = problem.documents[0]!.slice(0, 300);
    // Twice: the first is sent again inside the call, the second comes after llm.giveUpSeconds and ends the run.
    h.llm.injectFaults([
      { kind: 'garbage', body: echoed, contentType },
      { kind: 'garbage', body: echoed, contentType },
    ]);
    const handle = await startRun(h.client, { ...request('io'), llm: { maxAttempts: 1, giveUpSeconds: 0.3 } }, { taskQueue: h.taskQueue });
    const failure = await failureOf(handle);
    expect(failure.message).toMatch(said);
    const bytes = rawBytes(await rawClient.workflow.getHandle(handle.workflowId).fetchHistory());
    expect(bytes.includes(Buffer.from(echoed.slice(0, 12)))).toBe(false);
    for (let at = 0; at + 30 <= echoed.length; at += 15) expect(bytes.includes(Buffer.from(echoed.slice(at, at + 30)))).toBe(false);
  });

  it('would have shown them without the codec (the scan finds plain text)', async () => {
    const handle = await startRun(plain.client, request('io'), { taskQueue: plain.taskQueue });
    const plainResult = await resultOf(handle);
    const bytes = rawBytes(await rawClient.workflow.getHandle(handle.workflowId).fetchHistory());
    const sentences = documentSentences();
    expect(occurrences(bytes, sentences)).toEqual(sentences);
    const merged = sentencesOf(docMergeTask.answerText(plainResult.best!.state), 4);
    expect(merged.length).toBeGreaterThan(0);
    expect(occurrences(bytes, merged)).toEqual(merged);
  });

  it('is rebuilt by inspect with the codec, equal to the result GRS, and not without the key', async () => {
    const { grs } = await inspectRun(h.client, workflowId, undefined, { workflowBundle: bundle });
    expect(grs).toEqual(result.grs);
    expect(await rebuildGrs(history, { workflowBundle: bundle, dataConverter: { payloadCodecs: [codec] } })).toEqual(result.grs);
    await expect(rebuildGrs(history, { workflowBundle: bundle, dataConverter: {} })).rejects.toThrow(
      /the run's payloads are encrypted \(key "k2"\): set GOT_CODEC_KEYS/,
    );
    const wrongKeys = { payloadCodecs: [new AesGcmCodec(parseCodecKeys(generateCodecKey('k3')))] };
    await expect(rebuildGrs(history, { workflowBundle: bundle, dataConverter: wrongKeys })).rejects.toThrow(
      /encrypted with key "k2", which GOT_CODEC_KEYS lacks \(it has "k3"\)/,
    );
  });

  describe('the codec server', () => {
    const post = (path: string, body: unknown, headers: Record<string, string> = { authorization: AUTH }) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
        body: JSON.stringify(body),
      });
    const started = () => history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;

    it('decodes a raw encrypted payload from the history into the run request', async () => {
      const raw = started();
      expect(utf8(raw.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
      const response = await post('/decode', Payloads.toObject(Payloads.create({ payloads: [raw] }), { bytes: String }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/application\/json/);
      const body = (await response.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
      expect(body.payloads).toHaveLength(1);
      const decoded = Payloads.fromObject(body).payloads[0]!;
      expect(utf8(decoded.metadata!.encoding)).toBe('json/plain');
      const run = defaultPayloadConverter.fromPayload(decoded) as RunRequestInput;
      expect(run.problem).toEqual(problem);
    });

    it('round-trips /encode and /decode, also under a path prefix', async () => {
      const original = Payloads.toObject(
        Payloads.create({ payloads: [jsonPayload({ clause: 'Governing law: Delaware.' }), jsonPayload(42)] }),
        { bytes: String },
      );
      const encoded = (await (await post('/default/encode', original)).json()) as {
        payloads: { metadata: Record<string, string>; data: string }[];
      };
      expect(encoded.payloads.map((p) => Buffer.from(p.metadata.encoding!, 'base64').toString())).toEqual([
        ENCRYPTED_ENCODING,
        ENCRYPTED_ENCODING,
      ]);
      expect(Buffer.from(encoded.payloads[0]!.data, 'base64').includes(Buffer.from('Delaware'))).toBe(false);
      const decoded = await (await post('/decode', encoded)).json();
      expect(decoded).toEqual(original);
    });

    it('answers CORS preflights for the UI origin only, and checks the Authorization header', async () => {
      const preflight = (origin: string) =>
        fetch(`${server.url}/decode`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type,x-namespace,authorization',
          },
        });
      const ok = await preflight('http://localhost:8233');
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
      expect(ok.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/i);
      expect(ok.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
      expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();

      const body = Payloads.toObject(Payloads.create({ payloads: [started()] }), { bytes: String });
      expect((await post('/decode', body, {})).status).toBe(401);
      expect((await post('/decode', body, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await post('/decode', { nope: true })).status).toBe(400);
      expect((await fetch(`${server.url}/decode`)).status).toBe(405);
    });

    it('names the missing key when it cannot decode', async () => {
      const other = await startCodecServer({ codec: new AesGcmCodec(parseCodecKeys(generateCodecKey('k9'))), port: 0 });
      try {
        const response = await fetch(`${other.url}/decode`, {
          method: 'POST',
          body: JSON.stringify(Payloads.toObject(Payloads.create({ payloads: [started()] }), { bytes: String })),
        });
        expect(response.status).toBe(400);
        expect(await response.text()).toMatch(/key "k2": GOT_CODEC_KEYS has no key "k2"/);
      } finally {
        await other.close();
      }
    });

    it('serves `temporal workflow show --codec-endpoint` (the protocol the Web UI speaks too)', async () => {
      const binary = await ensureTemporalCli();
      /** The payloads of the history as the CLI prints it: protobuf JSON, bytes in base64. */
      const show = async (...extra: string[]): Promise<Payload[]> => {
        const args = [
          'workflow',
          'show',
          '--workflow-id',
          workflowId,
          '--address',
          inject('temporalAddress'),
          '--output',
          'json',
          ...extra,
        ];
        const { stdout } = await promisify(execFile)(binary, args, { maxBuffer: 64 * 1024 * 1024 });
        return payloadsOf(JSON.parse(stdout)).map(({ payload }) => Payloads.fromObject({ payloads: [payload] }).payloads[0]!);
      };
      const sentences = documentSentences();
      const dataOf = (payloads: Payload[]) => Buffer.concat(payloads.map((p) => Buffer.from(p.data ?? [])));

      const decoded = await show('--codec-endpoint', server.url, '--codec-auth', AUTH);
      expect(utf8(decoded[0]!.metadata!.encoding)).toBe('json/plain');
      expect((defaultPayloadConverter.fromPayload(decoded[0]!) as RunRequestInput).problem).toEqual(problem);
      expect(occurrences(dataOf(decoded), sentences)).toEqual(sentences);
      // Without the endpoint, the CLI shows what the server has: ciphertext.
      const raw = await show();
      expect(raw.length).toBe(decoded.length);
      expect(utf8(raw[0]!.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(occurrences(dataOf(raw), sentences)).toEqual([]);
    });
  });

  it('reads the codec server options from the environment', () => {
    const o = codecServerOptionsFromEnv({
      GOT_CODEC_KEYS: keys,
      GOT_CODEC_CORS_ORIGINS: 'http://ui:8080, http://localhost:8080',
      GOT_CODEC_AUTH: AUTH,
    });
    expect(o.corsOrigins).toEqual(['http://ui:8080', 'http://localhost:8080']);
    expect(o.authorization).toBe(AUTH);
    expect((o.codec as AesGcmCodec).keyIds).toEqual(['k2', 'k1']);
    expect(() => codecServerOptionsFromEnv({ GOT_STORE: 'off' })).toThrow(/GOT_CODEC_KEYS is not set and GOT_STORE is off/);
  });
});
