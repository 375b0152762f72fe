import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mammoth from 'mammoth';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunReport } from '../src/cli/report';
import type { PendingReview } from '../src/run/request';
import { encryptedPdf, ndaSamples, scannedPdf, writeDataRoom } from './support/documents';

/**
 * The product's main job as a user brings it: a data room of PDF, Word, HTML and Markdown files merged
 * from the command line, the result written as Word with its headings, every clause traced to its
 * sources, and the sources' disagreements decided by a person before the run finishes.
 */

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'got-documents-cli-'));
const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_') && k !== 'OPENAI_BASE_URL'));
// Nothing may be contacted by a refused run: a server or LLM call would fail with exit code 3, not 2.
const OFFLINE = { TEMPORAL_ADDRESS: '127.0.0.1:1', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' };
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

async function got(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [...CLI, ...args], { env: { ...inherited, ...env }, maxBuffer: 32 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const room = join(dir, 'room');
const online = () => ({ TEMPORAL_ADDRESS: inject('temporalAddress'), GOT_STORE: join(dir, 'store') });
const runArgs = (...more: string[]) => [
  'run',
  '--task',
  'doc-merge',
  '--scheme',
  'got',
  '--docs',
  room,
  '--task-queue',
  `documents-cli-${Math.random()}`,
  ...more,
];

beforeAll(async () => {
  await writeDataRoom(room, ndaSamples()[0]!);
}, 120_000);

describe('a data room of mixed formats from the command line', () => {
  it('merges PDF, DOCX, HTML and Markdown files, reports each clause traced to its sources, and writes Word with real headings', async () => {
    const output = join(dir, 'merged.docx');
    const { code, stdout, stderr } = await got(runArgs('--output', output, '--json'), online());
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as RunReport;
    expect(report.review!.documents).toEqual(['nda1.pdf', 'nda2.docx', 'nda3.html', 'nda4.md']);
    // The simulator writes merges from the sources' own sentences: every clause has a source.
    expect(report.review!.clauses).toBeGreaterThan(10);
    expect(report.review!.supported).toBe(report.review!.clauses);
    expect(report.review!.unsupportedClauses).toEqual([]);
    expect(report.review!.disagreements.length).toBeGreaterThan(0);

    const html = (await mammoth.convertToHtml({ buffer: await readFile(output) })).value;
    expect(html).toMatch(/<h1>[^<]*AGREEMENT[^<]*<\/h1>/);
    expect(html).toMatch(/<h[12]>Disagreements<\/h[12]>/);
    // Each clause carries its sources: the files it came from.
    expect(html).toMatch(/nda\d\.(pdf|docx|html|md)/);
    const { value: text } = await mammoth.extractRawText({ buffer: await readFile(output) });
    expect(text.replace(/\s+/g, ' ')).toContain(
      report
        .best!.answer.split('\n')
        .find((l) => l.length > 60)!
        .slice(0, 50)
        .replace(/^\d+\.\s*/, ''),
    );
  });

  it('refuses a scanned PDF, an encrypted one and an unsupported file in the folder, naming each and why, before anything starts', async () => {
    const bad = join(dir, 'bad-room');
    await writeDataRoom(bad, ndaSamples()[1]!.slice(0, 2));
    writeFileSync(join(bad, 'scan.pdf'), await scannedPdf(ndaSamples()[1]![2]!, { pages: 2 }));
    writeFileSync(join(bad, 'locked.pdf'), await encryptedPdf(ndaSamples()[1]![3]!));
    writeFileSync(join(bad, 'sheet.bin'), Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x10]));
    const { code, stderr } = await got(['run', '--task', 'doc-merge', '--docs', bad], OFFLINE);
    expect(code).toBe(2);
    expect(stderr).toMatch(/scan\.pdf: .*scanned PDF without a text layer: 2 of 2 pages have no text/);
    expect(stderr).toMatch(/locked\.pdf: .*encrypted/);
    expect(stderr).toMatch(/sheet\.bin: .*supported are PDF \(with a text layer\), DOCX, HTML, Markdown and plain text/);
  });

  it('refuses an output format it cannot write before the run starts', async () => {
    const { code, stderr } = await got(['run', '--task', 'doc-merge', '--docs', room, '--output', join(dir, 'merged.pdf')], OFFLINE);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--output: .*\.docx, \.md, \.html, \.txt/);
  });
});

describe('a person decides where the sources disagree (--review)', () => {
  it('waits for the decisions sent with got review, then finishes the merge stating the chosen values', async () => {
    const env = { ...inherited, ...online() };
    const child = spawn(process.execPath, [...CLI, ...runArgs('--review', '--json')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    const waiting = new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const id = /got review (\S+) --choose/.exec(stderr)?.[1];
        if (id) resolve(id);
      });
      child.on('exit', (code) => reject(new Error(`got run exited (${code}) before waiting for decisions:\n${stderr}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const workflowId = await waiting;

    const listed = await got(['review', workflowId, '--json'], online());
    expect(listed.code, listed.stderr).toBe(0);
    const pending = JSON.parse(listed.stdout) as PendingReview;
    expect(pending.documents).toEqual(['nda1.pdf', 'nda2.docx', 'nda3.html', 'nda4.md']);
    const first = pending.disagreements[0]!;
    const chosen = first.values.at(-1)!;
    // An unknown disagreement is refused by the CLI before anything is sent.
    const wrong = await got(['review', workflowId, '--choose', 'd99=1'], online());
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--choose: "d99=1": no disagreement "d99"/);

    const sent = await got(['review', workflowId, '--choose', `${first.id}=${chosen.document + 1}`], online());
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stderr).toMatch(/Sent 1 decision/);
    expect(await exited).toBe(0);
    const report = JSON.parse(stdout) as RunReport;
    expect(report.review!.decisions).toBe(1);
    expect(report.best!.answer).toContain(chosen.value.text);
    const after = report.review!.disagreements.find((d) => d.kind === first.kind && d.topic === first.topic);
    expect(after?.kept.map((k) => k.normalized)).toContain(chosen.value.normalized);
  });
});
