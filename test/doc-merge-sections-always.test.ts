import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { GoO, Operation } from '../src/goo/schema';
import { answerTokensFor } from '../src/tasks/doc-merge/budget';
import { docMergeSchemes } from '../src/tasks/doc-merge/schemes';
import { planSections } from '../src/tasks/doc-merge/splits';
import { got } from './support/cli';
import { ndaSamples } from './support/documents';

/** The paper's first NDAs: four documents that fit one prompt of an 8,192-token window whole. */
const NDAS = { documents: ndaSamples()[0]! };
const QWEN_WINDOW = 8_192;

const isSectioned = (goo: GoO) => goo.operations.some((op) => op.type === 'forEach' && op.parts.split === 'sections');
const finalScorer = (goo: GoO) => {
  const final = goo.operations.find((op) => op.id === 'final') as Extract<Operation, { type: 'score' }> | undefined;
  return final?.scorer;
};

describe('doc-merge sections=always (decision 87): section by section even where the documents fit whole', () => {
  it('every scheme merges the NDAs whole by default, and section by section when asked, judged whole by the paper’s judge', () => {
    // The paper's schemes; `clauses` (decision 91) works clause by clause and takes no `sections`.
    for (const [name, scheme] of Object.entries(docMergeSchemes).filter(([n]) => n !== 'clauses')) {
      const paper = scheme({ size: 4, problem: NDAS, contextTokens: QWEN_WINDOW });
      expect(isSectioned(paper), name).toBe(false);
      const sectioned = scheme({ size: 4, problem: NDAS, contextTokens: QWEN_WINDOW, params: { sections: 'always' } });
      expect(isSectioned(sectioned), name).toBe(true);
      expect(finalScorer(sectioned), name).toEqual({ kind: 'llm', prompt: 'judge', samples: 3 });
      const measured = scheme({
        size: 4,
        problem: NDAS,
        contextTokens: QWEN_WINDOW,
        params: { sections: 'always', retention: 'measured' },
      });
      expect(finalScorer(measured), name).toMatchObject({ kind: 'llm', prompt: 'judgeKept' });
    }
  });

  it('sections with no window known too (planned for an unknown model’s), and rates by the local score where the judge cannot see the whole', () => {
    expect(isSectioned(docMergeSchemes.io({ size: 4, problem: NDAS, params: { sections: 'always' } }))).toBe(true);
    const long = { documents: NDAS.documents.map((d) => `${d}\n\n${'The parties agree to further terms of supply. '.repeat(400)}`) };
    const sectioned = docMergeSchemes.io({ size: 4, problem: long, contextTokens: 4096, params: { sections: 'always' } });
    expect(finalScorer(sectioned)).toEqual({ kind: 'local' });
    // As documents that do not fit were always merged: the param changes nothing there.
    expect(sectioned).toEqual(docMergeSchemes.io({ size: 4, problem: long, contextTokens: 4096 }));
  });

  it('refuses a value it does not take, naming the param', () => {
    expect(() => docMergeSchemes.io({ size: 4, problem: NDAS, params: { sections: 'sometimes' } })).toThrow(/sections/);
  });

  it('got run --param sections=always: one merge per section and one judge of the whole, every document kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'got-sections-'));
    const problem = join(dir, 'ndas.json');
    writeFileSync(problem, JSON.stringify(NDAS));
    const out = await got(
      [
        'run',
        '--task',
        'doc-merge',
        '--scheme',
        'io',
        '--problem',
        problem,
        '--llm',
        'sim',
        '--param',
        'sections=always',
        '--json',
        '--no-progress',
      ],
      { TEMPORAL_ADDRESS: inject('temporalAddress'), GOT_STATE_DIR: dir },
    );
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as {
      status: string;
      llmCalls: number;
      best: { id: string; score: number };
      review: { retention: { document: number; clauses: number; kept: number }[] };
    };
    expect(result.status).toBe('answered');
    expect(result.best.id).toMatch(/^assemble/);
    const sections = planSections(NDAS, { contextTokens: 128_000, answerTokens: answerTokensFor(128_000) }).length;
    expect(result.llmCalls).toBe(sections + 1);
    // Each section's prompt carries every document's version of it, so no document is left out.
    for (const r of result.review.retention) expect(r.kept, `document ${r.document + 1}`).toBeGreaterThan(0);
  });
});
