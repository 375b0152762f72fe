/**
 * Documents as users bring them (`npm run bench:documents`): how long reading takes per format and
 * for a long PDF, and how long the engine's review of a merge takes for a data room of 200 contracts.
 * Prints a Markdown section for BENCHMARKS.md ("Documents"); times are medians of a few repetitions.
 */
import { cpus, totalmem } from 'node:os';
import { splitClauses } from '../src/documents/clauses';
import { readDocument } from '../src/documents/read';
import { reviewMerge } from '../src/documents/review';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { type FixtureFormat, ndaFile, ndaSamples, ndasPdf } from '../test/support/documents';
import { cpuCheckMs } from './calibration';
import { median } from './stats';

const REPEAT = 3;

async function timed<T>(work: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const times: number[] = [];
  let value!: T;
  for (let i = 0; i < REPEAT; i++) {
    const started = performance.now();
    value = await work();
    times.push(performance.now() - started);
  }
  return { ms: median(times), value };
}

async function main() {
  const check = cpuCheckMs();
  const samples = ndaSamples();
  const rows: string[] = [];
  const nda = samples[0]![1]!;
  for (const format of ['pdf', 'docx', 'html', 'markdown', 'text'] as FixtureFormat[]) {
    const bytes = await ndaFile(nda, format);
    const { ms, value } = await timed(() => readDocument(bytes, `nda.${format}`));
    rows.push(
      `| one NDA, ${format} | ${(bytes.length / 1024).toFixed(1)} | ${value.text.length.toLocaleString('en')} | ${ms.toFixed(0)} |`,
    );
  }
  const long = await ndasPdf(samples.flat().slice(0, 200), { pageNumbers: true });
  const read = await timed(() => readDocument(long, 'bundle-200.pdf'));
  rows.push(
    `| 200-page PDF | ${(long.length / 1024).toFixed(0)} | ${read.value.text.length.toLocaleString('en')} | ${read.ms.toFixed(0)} |`,
  );

  // 200 contracts of 200,000 characters (four generated rooms of 50), and a merge of ~100,000 characters made of their clauses.
  const documents = [0, 1, 2, 3].flatMap((seed) => generateDataRoom(50, 200_000, seed).documents);
  const parts: string[] = [];
  let length = 0;
  for (let d = 0; length < 100_000; d = (d + 37) % documents.length) {
    const units = splitClauses(documents[d]!).clauses.map((c) => c.text);
    for (let i = d % 50; i < units.length && length < 100_000; i += 97) {
      parts.push(units[i]!);
      length += units[i]!.length + 2;
    }
  }
  const merged = parts.join('\n\n');
  const started = performance.now();
  const review = reviewMerge({ documents }, merged);
  const reviewMs = performance.now() - started;
  const chars = documents.reduce((sum, d) => sum + d.length, 0);

  console.log(`## Documents

Measured by \`npm run bench:documents\` on ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, CPU check ${check.toFixed(1)} ms. Reading a file
into text with its headings and clause numbers (src/documents, decision 56), median of ${REPEAT}:

| file | KB | characters | read ms |
|---|---|---|---|
${rows.join('\n')}

The engine's review of a merge (decisions 57 and 58), once, in one process: a ${merged.length.toLocaleString('en')}-character merge
against ${documents.length} contracts of ${(chars / documents.length).toLocaleString('en', { maximumFractionDigits: 0 })} characters (${(chars / 1e6).toFixed(1)} M in all): ${(reviewMs / 1000).toFixed(1)} s
(provenance of ${review.counts.clauses.toLocaleString('en')} clauses, ${review.counts.supported.toLocaleString('en')} supported; terms of every contract, ${review.disagreements.length.toLocaleString('en')} disagreements,
which the generator plants on purpose). CPU check at the end ${cpuCheckMs().toFixed(1)} ms.`);
}

await main();
