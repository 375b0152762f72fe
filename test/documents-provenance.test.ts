import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { splitClauses } from '../src/documents/clauses';
import { pagesOf } from '../src/documents/places';
import { SourceIndex, SUPPORTED_SIMILARITY, traceProvenance } from '../src/documents/provenance';
import { reviewMerge } from '../src/documents/review';
import { AnswerReview, type SourceInfo } from '../src/documents/types';
import { docMergeResponder, INVENTED_CLAUSES } from '../src/simllm/doc-merge';
import type { AnswerContext } from '../src/simllm/responders';
import { parseInventShare, startSimulatedLlm } from '../src/simllm/server';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { generateDocMergeProblem, parseDocMergeCsv } from '../src/tasks/doc-merge/dataset';
import { extractMerged } from '../src/tasks/doc-merge/parse';
import { improvePrompt, mergePrompt } from '../src/tasks/doc-merge/prompts';
import { seededRandom } from '../src/util/random';
import { readSharedData } from './support/tasks';

const samples = parseDocMergeCsv(readSharedData('documents.csv'));
const context = (inventShare: number, seed: number): AnswerContext => ({ settings: { inventShare }, side: seededRandom(10_000 + seed) });
/** The simulator's merge of some documents: its answer to the merge prompt, with sentences of its own at the given share. */
const simulatedMerge = (documents: string[], seed: number, inventShare = 0) =>
  extractMerged(docMergeResponder(mergePrompt(documents))!.answer(seededRandom(seed), context(inventShare, seed)));
const isInvented = (text: string) => INVENTED_CLAUSES.some((s) => s.includes(text) || text.includes(s));

describe('clause units', () => {
  it('cuts sentences and list items, and keeps headings out of the clauses', () => {
    const text = [
      '# NON-DISCLOSURE AGREEMENT',
      '',
      'This agreement is made between Acme Inc. and Beta Ltd. The parties agree as follows.',
      '',
      '1. CONFIDENTIALITY',
      '',
      '1.1 The Recipient shall keep the information secret, e.g. by locking it away. It may disclose it under U.S. law',
      'when a court orders it, as in Case No. 5 of the register.',
      '(a) Each party pays its own costs;',
      '(b) Dr. Smith signs for the Recipient.',
      '',
      '2. Term and Termination: The agreement is valid for two (2) years.',
    ].join('\n');
    const { clauses, headings } = splitClauses(text);
    expect(headings.map((h) => h.title)).toEqual(['NON-DISCLOSURE AGREEMENT', 'CONFIDENTIALITY']);
    expect(clauses.map((c) => c.text)).toEqual([
      'This agreement is made between Acme Inc. and Beta Ltd.',
      'The parties agree as follows.',
      'The Recipient shall keep the information secret, e.g. by locking it away.',
      'It may disclose it under U.S. law\nwhen a court orders it, as in Case No. 5 of the register.',
      'Each party pays its own costs;',
      'Dr. Smith signs for the Recipient.',
      'Term and Termination: The agreement is valid for two (2) years.',
    ]);
    expect(clauses.map((c) => c.heading)).toEqual([
      'NON-DISCLOSURE AGREEMENT',
      'NON-DISCLOSURE AGREEMENT',
      'CONFIDENTIALITY',
      'CONFIDENTIALITY',
      'CONFIDENTIALITY',
      'CONFIDENTIALITY',
      'Term and Termination',
    ]);
    for (const c of clauses) expect(text.slice(c.start, c.end)).toBe(c.text);
  });

  it('splits headings a merge copied into a paragraph from the clauses around them', () => {
    const { clauses, headings } = splitClauses(
      "3. Receiving Party's Obligations: Restrict access to the information. Confidential Information shall not include information that: Is publicly known; Is independently developed.",
    );
    expect(clauses.map((c) => c.text)).toEqual([
      "Receiving Party's Obligations: Restrict access to the information.",
      'Confidential Information shall not include information that:',
      'Is publicly known;',
      'Is independently developed.',
    ]);
    expect(clauses[0]!.heading).toBe("Receiving Party's Obligations");
    expect(headings).toEqual([]);
  });
});

describe('the simulator inventing clauses', () => {
  const docs = samples[3]!.problem.documents;

  it('answers byte for byte as before when the invention share is 0', () => {
    for (let seed = 0; seed < 10; seed++) {
      const plain = docMergeResponder(mergePrompt(docs))!.answer(seededRandom(seed));
      expect(docMergeResponder(mergePrompt(docs))!.answer(seededRandom(seed), context(0, seed))).toBe(plain);
      const draft = extractMerged(plain) ?? '';
      const improve = docMergeResponder(improvePrompt(docs, draft))!;
      expect(improve.answer(seededRandom(seed), context(0, seed))).toBe(improve.answer(seededRandom(seed)));
    }
  });

  it('adds sentences of no source, from a stream of their own: without them the merge is the one it would have been', () => {
    let invented = 0;
    for (let seed = 0; seed < 10; seed++) {
      const plain = simulatedMerge(docs, seed)!;
      const inventive = simulatedMerge(docs, seed, 0.5)!;
      invented += INVENTED_CLAUSES.filter((s) => inventive.includes(s)).length;
      expect(INVENTED_CLAUSES.reduce((text, s) => text.replaceAll(` ${s}`, '').replaceAll(`${s} `, ''), inventive)).toBe(plain);
    }
    expect(invented).toBeGreaterThan(10);
    expect(() => docMergeResponder(mergePrompt(docs))!.answer(seededRandom(1), context(1.5, 1))).toThrow(/inventShare/);
  });

  it('invents sentences that no source of the paper or of the generator has', () => {
    const sources = [...samples.flatMap((s) => s.problem.documents), ...generateDocMergeProblem(8, 1).documents];
    for (const sentence of INVENTED_CLAUSES) expect(sources.some((d) => d.includes(sentence))).toBe(false);
  });

  it('is a server setting: an option, a setter, an environment variable', async () => {
    expect(parseInventShare('0.25')).toBe(0.25);
    expect(() => parseInventShare('2')).toThrow(/GOT_SIM_INVENT/);
    const sim = await startSimulatedLlm({ inventShare: 1 });
    try {
      const client = new OpenAI({ baseURL: sim.baseURL, apiKey: 'sim', maxRetries: 0 });
      const ask = async () =>
        (await client.chat.completions.create({ model: 'sim', seed: 3, messages: [{ role: 'user', content: mergePrompt(docs) }] }))
          .choices[0]!.message.content ?? '';
      const inventive = await ask();
      expect(INVENTED_CLAUSES.some((s) => inventive.includes(s))).toBe(true);
      sim.setInventShare(0);
      const plain = await ask();
      expect(INVENTED_CLAUSES.some((s) => plain.includes(s))).toBe(false);
      expect(() => sim.setInventShare(-1)).toThrow(RangeError);
    } finally {
      await sim.close();
    }
  });
});

describe('provenance of merged clauses', () => {
  it('names exactly the documents a copied clause came from, and flags invented ones (simulated merges of the paper NDAs)', () => {
    let [truePositive, falsePositive, falseNegative] = [0, 0, 0];
    let [invented, inventedFlagged, glued, clauses] = [0, 0, 0, 0];
    const used = samples.slice(0, 40);
    for (const [k, sample] of used.entries()) {
      const documents = sample.problem.documents;
      const merged = simulatedMerge(documents, k, 0.3);
      if (!merged) continue;
      const { clauses: traced, counts } = traceProvenance(merged, documents);
      expect(counts.clauses).toBe(traced.length);
      expect(counts.supported + counts.unsupported).toBe(counts.clauses);
      for (const clause of traced) {
        clauses++;
        const text = merged.slice(clause.start, clause.end);
        if (isInvented(text)) {
          invented++;
          if (!clause.supported) inventedFlagged++;
          continue;
        }
        // A sentence the simulator copied belongs to exactly the documents holding it word for word.
        const truth = new Set(documents.flatMap((d, i) => (d.includes(text) ? [i] : [])));
        if (truth.size === 0) {
          // The simulator joined a heading or list lead-in of one source to a sentence of another: no single source holds it.
          glued++;
          continue;
        }
        const found = new Set(clause.sources.map((s) => s.document));
        for (const d of found) truth.has(d) ? truePositive++ : falsePositive++;
        for (const d of truth) if (!found.has(d)) falseNegative++;
      }
    }
    const precision = truePositive / (truePositive + falsePositive);
    const recall = truePositive / (truePositive + falseNegative);
    console.log(
      `provenance over ${used.length} merges, ${clauses} clauses: precision ${precision.toFixed(4)}, recall ${recall.toFixed(4)}; ` +
        `invented clauses marked unsupported ${inventedFlagged}/${invented}; clauses joined from several sources ${glued}`,
    );
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(invented).toBeGreaterThan(50);
    expect(inventedFlagged / invented).toBeGreaterThanOrEqual(0.9);
    expect(glued / clauses).toBeLessThan(0.05);
  });

  it('gives each source its span, its section title and its pages', () => {
    const documents = samples[0]!.problem.documents;
    const pageStarts = [0, 400, 800, 1200];
    const sources: SourceInfo[] = documents.map((_, i) => ({ name: `nda-${i}.pdf`, format: 'pdf', ...(i === 1 ? { pageStarts } : {}) }));
    const merged =
      "MERGED NDA\n\n1. Governing Law: [Your State]'s laws apply. Breach penalties include injunctive relief, other remedies, and a $200,000 fee per breach.";
    const { clauses } = traceProvenance(merged, documents, sources);
    expect(clauses).toHaveLength(2);
    const [law, fee] = clauses;
    expect(law!.supported).toBe(true);
    expect(law!.heading).toBe('Governing Law');
    const source = law!.sources[0]!;
    expect(source).toMatchObject({ document: 1, similarity: 1 });
    expect(documents[1]!.slice(source.start, source.end)).toBe("Governing Law: [Your State]'s laws apply.");
    expect(source.section).toBe('General Provisions');
    expect(source.pages).toEqual(pagesOf(pageStarts, source.start, source.end));
    expect(source.pages![0]).toBe(1 + pageStarts.filter((p) => p <= source.start).length - 1);
    expect(fee!.sources.map((s) => s.document)).toEqual([0]);
    expect(fee!.sources[0]!.pages).toBeUndefined();
  });

  it('keeps placeholders and numbering from deciding a match', () => {
    const index = new SourceIndex([
      'Signed by [Your Company Name] and [Recipient Name] at the above date.',
      '1. Agreement between [Your Company Name] and [Recipient Name] on [Date].',
    ]);
    // Sharing two placeholders is not sharing a clause.
    const [best] = index.match('Agreement between [Your Company Name] and [Recipient Name] on [Date].');
    expect(best).toMatchObject({ document: 1, similarity: 1 });
    const placeholdersOnly = index.match('Notices go to [Your Company Name] and [Recipient Name] by courier.');
    expect(placeholdersOnly[0]?.similarity ?? 0).toBeLessThan(SUPPORTED_SIMILARITY);
    expect(pagesOf([0, 10, 20], 15, 25)).toEqual([2, 3]);
  });

  it('reviews a merge into the wire form', () => {
    const problem = samples[1]!.problem;
    const review = reviewMerge(problem, simulatedMerge(problem.documents, 1, 0.3)!);
    expect(AnswerReview.parse(review)).toEqual(review);
    expect(review.counts.unsupported).toBeGreaterThan(0);
  });

  it('traces a data room of 200 contracts of 200,000 characters against a merge of 100,000 in seconds', () => {
    // Four rooms of 50 of one customer's template make 200 (of four templates, as deal rooms gather them).
    const documents = [0, 1, 2, 3].flatMap((seed) => generateDataRoom(50, 200_000, seed).documents);
    const parts: string[] = [];
    let length = 0;
    for (let d = 0; length < 100_000; d = (d + 37) % documents.length) {
      const units = splitClauses(documents[d]!).clauses;
      for (let i = d % 50; i < units.length && length < 100_000; i += 97) {
        parts.push(units[i]!.text);
        length += units[i]!.text.length + 2;
      }
    }
    const merged = parts.join('\n\n');
    const started = performance.now();
    const { counts } = traceProvenance(merged, documents);
    const seconds = (performance.now() - started) / 1000;
    const chars = documents.reduce((sum, d) => sum + d.length, 0);
    console.log(
      `provenance of a ${merged.length}-character merge over ${documents.length} documents (${chars} characters): ${seconds.toFixed(1)} s, ${counts.supported}/${counts.clauses} clauses supported`,
    );
    expect(counts.supported).toBe(counts.clauses);
    // The whole review: the sentence index is reused, so this adds the terms and disagreements.
    const reviewStarted = performance.now();
    const review = reviewMerge({ documents }, merged);
    console.log(
      `review of the same merge (terms of all ${documents.length} documents, ${review.disagreements.length} disagreements): ${((performance.now() - reviewStarted) / 1000).toFixed(1)} s more`,
    );
  });
});
