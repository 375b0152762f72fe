import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { GoO, Operation } from '../src/goo/schema';
import { docMergeTask } from '../src/tasks/doc-merge';
import { docMergeSchemes } from '../src/tasks/doc-merge/schemes';
import { combineRatings, combineWithMeasuredRetention } from '../src/tasks/doc-merge/score';
import { got } from './support/cli';
import { type ScriptedLlm, startScriptedLlm } from './support/scripted-llm';

const DOCS = [
  'The Recipient shall keep all Confidential Information secret for three years. The Recipient shall use the Confidential Information only to evaluate the proposed supply contract.',
  'Any breach entitles the Discloser to seek injunctive relief in the courts of England. Each party shall return or destroy all copies of confidential documents within thirty days of a written request.',
  'Neither party may assign this agreement without the prior written consent of the other party. Notices must be delivered by registered post to the addresses stated on the first page.',
  'The obligations survive the termination of the supply contract for a further two years. The Recipient shall notify the Discloser promptly of any unauthorised disclosure it becomes aware of.',
];
/** A "merge" that restates the first document and drops the other three. */
const FIRST_ONLY = DOCS[0]!;
const ALL = DOCS.join('\n');
const PERFECT = [
  [10, 10],
  [10, 10],
  [10, 10],
];

describe('doc-merge scored with measured retention (decision 82)', () => {
  it('scores a merge that restates one of four documents low however well the judge rates it; a merge keeping all, as judged', () => {
    expect(combineRatings(PERFECT)).toBe(10);
    const one = combineWithMeasuredRetention(PERFECT, FIRST_ONLY, DOCS);
    // Two of eight clauses kept: retention 2.5, harmonic mean with 10 = 4.
    expect(one).toBeCloseTo((2 * 10 * 2.5) / 12.5, 5);
    expect(combineWithMeasuredRetention(PERFECT, ALL, DOCS)).toBe(10);
    // Redundancy stays the judge's: a judge that finds repetition lowers the score still.
    expect(combineWithMeasuredRetention([[4, 10]], ALL, DOCS)).toBeCloseTo((2 * 4 * 10) / 14, 5);
    expect(combineWithMeasuredRetention([], ALL, DOCS)).toBe(0);
  });

  it("judges a merge of some documents (GoT2's halves) against those documents only", () => {
    const judgeKept = docMergeTask.llmScorers!.judgeKept!;
    const problem = { documents: DOCS };
    expect(judgeKept.combine(PERFECT, { state: { documents: [0], merged: FIRST_ONLY }, problem })).toBe(10);
    expect(judgeKept.combine(PERFECT, { state: { documents: [0, 1, 2, 3], merged: FIRST_ONLY }, problem })).toBeCloseTo(4, 5);
    // The judge's prompt is the paper's, unchanged.
    expect(judgeKept.buildPrompt({ documents: [0, 1], merged: ALL }, problem)).toEqual(
      docMergeTask.llmScorers!.judge!.buildPrompt({ documents: [0, 1], merged: ALL }, problem),
    );
  });

  const llmScorersOf = (goo: GoO): string[] => {
    const names: string[] = [];
    const walk = (op: Operation) => {
      if (op.type === 'forEach') op.body.forEach(walk);
      if (op.type === 'score' && op.scorer.kind === 'llm') names.push(op.scorer.prompt);
    };
    goo.operations.forEach(walk);
    return names;
  };

  it('retention=measured swaps every judge of every scheme, sectioned ones too; the default keeps the paper’s', () => {
    // The paper's schemes; `clauses` (decision 91) scores its groups by the engine and takes no `retention`.
    for (const [name, scheme] of Object.entries(docMergeSchemes).filter(([n]) => n !== 'clauses')) {
      const paper = llmScorersOf(scheme({ size: 4 }));
      const measured = llmScorersOf(scheme({ size: 4, params: { retention: 'measured' } }));
      expect(paper.length, name).toBeGreaterThan(0);
      expect(new Set(paper), name).toEqual(new Set(['judge']));
      expect(new Set(measured), name).toEqual(new Set(['judgeKept']));
      expect(measured).toHaveLength(paper.length);
    }
    // Documents too long for the window: the sectioned form, whose parts are judged section by section.
    const long = { documents: DOCS.map((d) => `${d}\n\n${'The parties agree to further terms of supply. '.repeat(400)}`) };
    const sectioned = docMergeSchemes.got({ size: 4, problem: long, contextTokens: 4096, params: { retention: 'measured' } });
    expect(new Set(llmScorersOf(sectioned))).toEqual(new Set(['judgeSectionKept']));
  });
});

describe('got run --param retention=measured: the judge rates a one-document "merge" 10, the run scores it by what it keeps', () => {
  let llm: ScriptedLlm;
  const dir = mkdtempSync(join(tmpdir(), 'got-kept-'));
  const problem = join(dir, 'ndas.json');
  writeFileSync(problem, JSON.stringify({ documents: DOCS }));
  beforeAll(async () => {
    llm = await startScriptedLlm();
  });
  afterAll(async () => {
    await llm.close();
  });

  const runIo = async (param: string[]) => {
    // IO: one merge, then one judge request with n = 3.
    llm.reply(
      { choices: [{ content: `<Merged>\n${FIRST_ONLY}\n</Merged>` }] },
      { choices: Array.from({ length: 3 }, () => ({ content: '<Redundancy>10</Redundancy>\n<Retained>10</Retained>' })) },
    );
    const out = await got(['run', '--task', 'doc-merge', '--scheme', 'io', '--problem', problem, ...param, '--json', '--no-progress'], {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      OPENAI_BASE_URL: llm.baseURL,
      OPENAI_API_KEY: 'scripted',
      GOT_STATE_DIR: dir,
    });
    expect(out.code, out.stderr).toBe(0);
    return JSON.parse(out.stdout) as { best: { score: number } };
  };

  it('scores it 10 with the paper’s judge and 4 with measured retention', async () => {
    expect((await runIo([])).best.score).toBe(10);
    expect((await runIo(['--param', 'retention=measured'])).best.score).toBeCloseTo(4, 5);
  });

  it('refuses --param beside --goo, and a value the scheme does not take, before anything starts', async () => {
    const goo = join(dir, 'goo.json');
    writeFileSync(goo, JSON.stringify({ version: 1, operations: [{ id: 'g', type: 'generate', prompt: 'merge' }] }));
    const both = await got(['run', '--task', 'doc-merge', '--goo', goo, '--param', 'retention=measured'], {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--param: .* --goo runs a GoO file as written/);
    const bad = await got(['run', '--task', 'doc-merge', '--scheme', 'io', '--param', 'retention=maybe'], {
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/scheme\.params\.retention: expected one of "judged", "measured"/);
  });
});
