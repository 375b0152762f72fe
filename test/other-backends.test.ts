import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dataConverterFromEnv } from '../src/codec/data-converter';
import { type CodecServer, startCodecServer } from '../src/codec/server';
import { ensureTemporalCli } from '../src/devserver/temporal-cli';
import { runRequestOf } from '../src/inspect/rebuild';
import { checkRun } from '../src/run/check';
import type { RunRequestInput, RunResult } from '../src/run/request';
import { docMergeTask } from '../src/tasks/doc-merge';
import { sortingTask } from '../src/tasks/sorting';
import { checkStudy } from '../src/tune/request';
import { ndaFile, ndaSamples, scannedPdf, writeDataRoom } from './support/documents';
import { type Harness, startHarness } from './support/harness';

const exec = promisify(execFile);
let h: Harness;
let python: string;
let temporal: string;
const dir = mkdtempSync(join(tmpdir(), 'got-backends-'));

beforeAll(async () => {
  h = await startHarness();
  // The official Python SDK from PyPI, in a user-level cached venv (about 20 s the first time).
  python = (await exec('bash', ['scripts/python-env.sh'])).stdout.trim();
  temporal = await ensureTemporalCli();
}, 600_000);
afterAll(async () => h?.close());

describe('starting runs from outside TypeScript', () => {
  it('a Python client that knows only the published contract names the GoT scheme, merges documents and reads progress and result', async () => {
    const { documents } = docMergeTask.generateProblem(3, 21);
    const docs = documents.map((text, i) => {
      const path = join(dir, `nda-${i}.txt`);
      writeFileSync(path, text);
      return path;
    });
    const out = join(dir, 'merged.txt');
    const { stdout } = await exec(python, [
      'examples/python/start_merge.py',
      '--address',
      inject('temporalAddress'),
      '--task-queue',
      h.taskQueue,
      ...docs.flatMap((d) => ['--doc', d]),
      '--out',
      out,
    ]);
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => e.event)).toEqual(['started', 'progress', 'completed']);
    // The progress it read is the GoO the worker built from the scheme: the paper's GoT for merging, 9 operations.
    expect((events[1]!.progress as { operations_total: number }).operations_total).toBe(9);
    const done = events[2] as { workflowId: string; bestScore: number; merged: string; llmCalls: number };
    expect(done.bestScore).toBeGreaterThan(0);
    expect(done.merged.length).toBeGreaterThan(500);
    expect(readFileSync(out, 'utf8')).toBe(done.merged);
    // The same run, seen from TypeScript: the Python client got exactly the workflow's answer.
    const result = (await h.client.workflow.getHandle(done.workflowId).result()) as RunResult;
    expect(result.best!.state.merged).toBe(done.merged);
    expect(result.grs.totals.llmCalls).toBe(done.llmCalls);
    expect(result.labels).toEqual({ client: 'python', scheme: 'got', size: 3 });
    // It sent the scheme's name, not a GoO; the history reads back as the GoO the worker expanded.
    const history = await h.client.workflow.getHandle(done.workflowId).fetchHistory();
    const sent = defaultPayloadConverter.fromPayload<RunRequestInput>(
      history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!,
    );
    // The bare name: the short form a client writes when the paper's values will do.
    expect(sent.scheme).toBe('got');
    expect(sent.goo).toBeUndefined();
    expect((await runRequestOf(history)).goo).toEqual(
      checkRun({ task: 'doc-merge', problem: sent.problem, scheme: { name: 'got' } }).request.goo,
    );
  });

  it("the Python client refuses a problem the task's published schema rejects, naming the field, before contacting the server", async () => {
    const only = join(dir, 'only.txt');
    writeFileSync(only, docMergeTask.generateProblem(2, 3).documents[0]!);
    // One document: the request's own schema lets any problem through; doc-merge's problem schema wants at least 2.
    const { code, events, stderr } = await python3Client(['--address', '127.0.0.1:1', '--doc', only]);
    expect(code).toBe(2);
    expect(events).toEqual([
      {
        event: 'failed',
        type: 'ValidationError',
        where: expect.stringMatching(/before sending/),
        issues: [{ path: 'problem.documents', message: expect.stringMatching(/too short/) }],
      },
    ]);
    expect(stderr).toMatch(/problem\.documents: /);
  });

  it('the Python client reports, with its field, a scheme the worker refused before any LLM call', async () => {
    const docs = docMergeTask.generateProblem(2, 4).documents.map((text, i) => {
      const path = join(dir, `pair-${i}.txt`);
      writeFileSync(path, text);
      return path;
    });
    h.llm.resetStats();
    const { code, events, stderr } = await python3Client([
      '--address',
      inject('temporalAddress'),
      '--task-queue',
      h.taskQueue,
      ...docs.flatMap((d) => ['--doc', d]),
      '--scheme',
      'magic',
    ]);
    expect(code).toBe(2);
    expect(events.map((e) => e.event)).toEqual(['started', 'failed']);
    expect(events[1]).toEqual({
      event: 'failed',
      type: 'ValidationError',
      where: 'refused by the worker (ValidationError)',
      issues: [
        { path: 'scheme.name', message: 'task "doc-merge" has no scheme "magic"; expected one of: io, cot, tot, got, got2, clauses' },
      ],
    });
    expect(stderr).toMatch(/scheme\.name: task "doc-merge" has no scheme "magic"/);
    expect(h.llm.stats().requests).toBe(0);
  });

  it('the Python client refuses a request the schema rejects, before contacting the server', async () => {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '');
    // A budget that is not positive violates the published schema (exclusiveMinimum 0).
    const { code, stderr } = await python3Client(['--address', '127.0.0.1:1', '--doc', empty, '--doc', empty, '--budget-usd', '-1']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/budget\.maxCostUsd: -1\.0 is less than or equal to the minimum of 0/);
  });

  it("docs/contract.md's `temporal workflow start` names a scheme, and runs as written", async () => {
    // The command exactly as the document shows it, pointed at this test's server and worker.
    const command = commandIn(readFileSync('docs/contract.md', 'utf8'), 'temporal workflow start')
      .replace('--task-queue got ', `--task-queue ${h.taskQueue} `)
      .replace(/--workflow-id (\S+)/, `--workflow-id $1-${Date.now()}`);
    expect(command).toMatch(/--input '\{.*"scheme": \{"name": "got"/);
    const env = { ...process.env, PATH: `${dirname(temporal)}:${process.env.PATH}`, TEMPORAL_ADDRESS: inject('temporalAddress') };
    const { stdout } = await exec('bash', ['-c', `${command} --output json`], { env });
    const { workflowId } = JSON.parse(stdout) as { workflowId: string };
    const result = (await h.client.workflow.getHandle(workflowId).result()) as RunResult;
    expect(result.task).toBe('sorting');
    expect(result.status).toBe('answered');
    expect(result.labels).toEqual({ scheme: 'got', size: 16 });
    expect(result.grs.operations.map((o) => o.id)).toEqual(expect.arrayContaining(['split', 'part-0', 'part-1', 'final']));
  });

  it("docs/contract.md's run with a prompt set as its task runs as written", async () => {
    const docs = readFileSync('docs/contract.md', 'utf8');
    const command = commandIn(docs.slice(docs.indexOf('Since 1.11.0')), 'temporal workflow start')
      .replace('--task-queue got ', `--task-queue ${h.taskQueue} `)
      .replace(/--workflow-id (\S+)/, `--workflow-id $1-${Date.now()}`);
    expect(command).toMatch(/"task": \{"id": "sorting", "prompts"/);
    const env = { ...process.env, PATH: `${dirname(temporal)}:${process.env.PATH}`, TEMPORAL_ADDRESS: inject('temporalAddress') };
    const { stdout } = await exec('bash', ['-c', `${command} --output json`], { env });
    const { workflowId } = JSON.parse(stdout) as { workflowId: string };
    const result = (await h.client.workflow.getHandle(workflowId).result()) as RunResult;
    expect(result.status).toBe('answered');
    // The worker took the set as the run's task (that it rewords the prompts: test/prompt-search.workflow.test.ts).
    const { events } = await h.client.workflow.getHandle(workflowId).fetchHistory();
    const input = events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    expect(JSON.parse(Buffer.from(input!.data!).toString()).task).toEqual({
      id: 'sorting',
      prompts: { sort: { format: 'Reply with the sorted list alone.', examples: [] } },
    });
  });

  it('the temporal CLI starts a run from a JSON file and queries it', async () => {
    const id = `got-cli-${Date.now()}`;
    const address = inject('temporalAddress');
    await exec(temporal, [
      'workflow',
      'start',
      '--address',
      address,
      '--type',
      'graphOfThoughts',
      '--task-queue',
      h.taskQueue,
      '--workflow-id',
      id,
      '--input-file',
      'examples/sorting-io-request.json',
    ]);
    const result = (await h.client.workflow.getHandle(id).result()) as RunResult;
    expect(result.task).toBe('sorting');
    expect(result.grs.calls).toHaveLength(1);
    expect(result.best?.score).toBeTypeOf('number');
    const { stdout } = await exec(temporal, [
      'workflow',
      'query',
      '--address',
      address,
      '--workflow-id',
      id,
      '--type',
      'progress',
      '--output',
      'json',
    ]);
    expect(stdout).toMatch(/"operationsDone":\s*4/);
  });
});

/** Runs the Python client; its exit code, the JSON events it printed and its error output. */
async function python3Client(args: string[]): Promise<{ code: number; events: Record<string, unknown>[]; stderr: string }> {
  const outcome = await exec(python, ['examples/python/start_merge.py', ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  const events = outcome.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code: outcome.code, events, stderr: outcome.stderr };
}

describe('documents as a client in another language brings them', () => {
  let stored: Harness;
  let codec: CodecServer;
  let raw: Client;
  const storeDir = mkdtempSync(join(tmpdir(), 'got-backends-store-'));

  beforeAll(async () => {
    stored = await startHarness({ dataConverter: dataConverterFromEnv({ GOT_STORE: storeDir })! });
    codec = await startCodecServer({ externalStorage: dataConverterFromEnv({ GOT_STORE: storeDir })!.externalStorage, port: 0 });
    raw = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
  }, 120_000);
  afterAll(async () => {
    await raw?.connection.close();
    await codec?.close();
    await stored?.close();
  });

  it('sends PDF, DOCX, HTML and Markdown files through the codec server; the worker reads them and the history holds none of them', async () => {
    const texts = ndaSamples()[2]!;
    const files = await writeDataRoom(join(dir, 'room'), texts);
    const { code, events, stderr } = await python3Client([
      '--address',
      inject('temporalAddress'),
      '--task-queue',
      stored.taskQueue,
      '--codec-endpoint',
      codec.url,
      ...files.flatMap((f) => ['--doc', f]),
      '--scheme',
      'io',
    ]);
    expect(code, stderr).toBe(0);
    const done = events.at(-1) as { event: string; workflowId: string; review: { clauses: number; supported: number } };
    expect(done.event).toBe('completed');
    expect(done.review.clauses).toBeGreaterThan(5);
    expect(done.review.supported).toBe(done.review.clauses);
    const result = (await stored.client.workflow.getHandle(done.workflowId).result()) as RunResult;
    expect(result.grs.review!.documents).toEqual(['nda1.pdf', 'nda2.docx', 'nda3.html', 'nda4.md']);

    // Seen without the store: references only, neither the files sent nor the text read from them.
    const history = await raw.workflow.getHandle(done.workflowId).fetchHistory();
    const bytes = Buffer.from(proto.temporal.api.history.v1.History.encode(history).finish()).toString('latin1');
    expect(bytes).not.toContain('"base64"');
    const sentence = texts[1]!
      .split('\n')
      .find((l) => l.length > 80)!
      .slice(10, 60);
    expect(bytes).not.toContain(sentence);
    expect(bytes).toContain('ExternalStorageReference');
  });

  it('refuses a scanned PDF in the worker before any LLM call, naming the file', async () => {
    const texts = ndaSamples()[3]!;
    const scan = join(dir, 'scan.pdf');
    writeFileSync(scan, await scannedPdf(texts[0]!, { pages: 1 }));
    const docx = join(dir, 'other.docx');
    writeFileSync(docx, await ndaFile(texts[1]!, 'docx'));
    stored.llm.resetStats();
    const { code, events } = await python3Client([
      '--address',
      inject('temporalAddress'),
      '--task-queue',
      stored.taskQueue,
      '--codec-endpoint',
      codec.url,
      '--doc',
      scan,
      '--doc',
      docx,
    ]);
    expect(code).toBe(2);
    expect(events.at(-1)).toMatchObject({
      event: 'failed',
      type: 'ValidationError',
      issues: [{ path: 'problem.files[0]', message: expect.stringMatching(/scan\.pdf: a scanned PDF without a text layer: 1 of 1 page/) }],
    });
    expect(stored.llm.stats().requests).toBe(0);
  });
});

/** The first command of a Markdown document starting with `start`, its continued lines joined. */
function commandIn(markdown: string, start: string): string {
  const lines = markdown.split('\n');
  const first = lines.findIndex((l) => l.startsWith(start));
  if (first < 0) throw new Error(`no line starting with "${start}"`);
  let command = '';
  for (let i = first; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line.endsWith('\\')) return `${command}${line}`;
    command += `${line.slice(0, -1)}`;
  }
  return command;
}

describe('the published study request (schema/study-request.schema.json)', () => {
  /** Errors Python's jsonschema finds in `instance` against a published schema file, as `path: message` lines. */
  async function schemaErrors(file: string, instance: unknown): Promise<string[]> {
    const script = [
      'import json, sys, jsonschema',
      'schema = json.load(open(sys.argv[1]))',
      'instance = json.loads(sys.stdin.read())',
      'for e in jsonschema.Draft202012Validator(schema).iter_errors(instance):',
      '    print("/".join(str(p) for p in e.absolute_path) + ": " + e.message)',
    ].join('\n');
    const child = execFile(python, ['-c', script, join('schema', file)]);
    child.stdin!.end(JSON.stringify(instance));
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
    });
    await new Promise((resolve, reject) => child.once('close', (code) => (code === 0 ? resolve(code) : reject(new Error(`exit ${code}`)))));
    return out.split('\n').filter(Boolean);
  }
  const study = {
    task: 'sorting',
    source: { scheme: 'got' },
    size: 32,
    samples: [0, 1].map((i) => ({ id: String(i), problem: sortingTask.generateProblem(32, i) })),
    trials: 3,
    maxCostPerSample: 0.01,
  };

  it('accepts the study the worker accepts, and refuses a missing or out-of-range field by its name, as the worker does', async () => {
    expect(() => checkStudy(study)).not.toThrow();
    expect(await schemaErrors('study-request.schema.json', study)).toEqual([]);

    const { trials: _, ...noTrials } = study;
    expect(() => checkStudy(noTrials)).toThrow(/trials/);
    expect((await schemaErrors('study-request.schema.json', noTrials)).join('\n')).toMatch(/'trials' is a required property/);

    const tooMany = { ...study, trials: 501 };
    expect(() => checkStudy(tooMany)).toThrow(/trials/);
    expect(await schemaErrors('study-request.schema.json', tooMany)).toEqual([
      expect.stringMatching(/^trials: 501 is greater than the maximum of 500/),
    ]);
  });
});
