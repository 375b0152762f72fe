import type { GoO, Operation, OperationOf } from '../../goo/schema';
import { answerTokensFor, type TokenWindow } from './budget';
import type { DocMergeProblem } from './dataset';
import { aggregateOverhead, nameOf, planSections } from './splits';

/**
 * The schemes for documents that do not fit one prompt (decision 36): every section (or piece of
 * one) is merged by the scheme's own steps per group of documents that fits the window, the drafts
 * of a section are aggregated level by level until one is left, and the sections' drafts are
 * assembled into the merged document, which the local score rates as a whole.
 *
 * The GoO uses the forEach operation: `parts` names one of the task's splits (`sections`,
 * `bySection`, `assemble`), and the body runs once per part, its root operations taking the part's
 * thoughts. Written as plain data of that shape.
 */

/** One operation of a sectioned GoO, as plain data. */
type PlainOp = Operation;
type ForEachOp = OperationOf<'forEach'>;

const JUDGE = { kind: 'llm', prompt: 'judgeSection', samples: 3 } as const;
/** The paper's judge of a whole merge, as many samples as a section's. */
const WHOLE_JUDGE = { ...JUDGE, prompt: 'judge' } as const;
const generate = (id: string, inputs: string[], prompt: string, k: number): PlainOp => ({ id, type: 'generate', inputs, prompt, k });
const judge = (id: string, inputs: string[]): PlainOp => ({ id, type: 'score', inputs, scorer: { ...JUDGE } });
const keep = (id: string, inputs: string[], n: number): PlainOp => ({ id, type: 'keepBestN', inputs, n, higherIsBetter: true });

/** The scheme's steps on one part (one section's versions in one group of documents); its sink is the part's draft. */
export const PART_BODIES = {
  io: () => [generate('merge', [], 'mergeSection', 1)],
  cot: () => [generate('merge', [], 'mergeSectionCot', 1)],
  // ToT: the best of 10 merges, refined twice by 10 improvements each, keeping the best so far.
  tot: () => [
    generate('merge', [], 'mergeSection', 10),
    judge('judge', ['merge']),
    keep('best-0', ['judge'], 1),
    generate('improve-1', ['best-0'], 'improveSection', 10),
    judge('judge-1', ['improve-1']),
    keep('best-1', ['judge-1', 'best-0'], 1),
    generate('improve-2', ['best-1'], 'improveSection', 10),
    judge('judge-2', ['improve-2']),
    keep('best', ['judge-2', 'best-1'], 1),
  ],
  // GoT: 5 merges, the best 3 aggregated (5 samples), the best refined (10 samples).
  got: () => [
    generate('merge', [], 'mergeSection', 5),
    judge('judge', ['merge']),
    keep('best-3', ['judge'], 3),
    { id: 'aggregate', type: 'aggregate', inputs: ['best-3'], prompt: 'aggregateSection', k: 5 },
    judge('judge-aggregate', ['aggregate']),
    keep('best-1', ['judge-aggregate', 'best-3'], 1),
    generate('improve', ['best-1'], 'improveSection', 10),
    judge('judge-improve', ['improve']),
    keep('best', ['judge-improve', 'best-1'], 1),
  ],
  // GoT2: each group of documents merged on its own (the best of 5); the aggregation levels do the rest.
  got2: () => [generate('merge', [], 'mergeSection', 5), judge('judge', ['merge']), keep('best', ['judge'], 1)],
} satisfies Record<string, () => PlainOp[]>;

export type SectionedScheme = keyof typeof PART_BODIES;

/**
 * One aggregation level's body: the group's drafts fused; for the sampling schemes 5 samples
 * judged and the best kept, for io and cot one sample (nothing to choose from, so no judge).
 */
function combineBody(scheme: SectionedScheme): PlainOp[] {
  const single = scheme === 'io' || scheme === 'cot';
  const aggregate: PlainOp = { id: 'aggregate', type: 'aggregate', inputs: [], prompt: 'aggregateSection', k: single ? 1 : 5 };
  return single ? [aggregate] : [aggregate, judge('judge', ['aggregate']), keep('best', ['judge'], 1)];
}

/**
 * How many aggregation levels a section may need: its first-level drafts cut, per level, into
 * groups of as many drafts as one prompt holds when each is as long as the answer reserve, plus
 * one level in case drafts come out longer than planned (a level where every section has one draft
 * passes them through).
 */
export function aggregationLevels(draftsPerSection: number, perPrompt: number): number {
  let levels = 0;
  for (let n = draftsPerSection; n > 1; n = Math.ceil(n / perPrompt)) levels++;
  return levels === 0 ? 0 : levels + 1;
}

/**
 * The sectioned GoO of a scheme for a problem and a window. `judgeWhole`: the assembled merge is rated
 * by the paper's judge over the whole documents (only where that prompt fits the window; a merge
 * sectioned by choice, `sections: always`), instead of the engine's local score.
 */
export function sectionedScheme(
  scheme: SectionedScheme,
  problem: DocMergeProblem,
  contextTokens: number,
  { judgeWhole = false } = {},
): GoO {
  const window: TokenWindow = { contextTokens, answerTokens: answerTokensFor(contextTokens) };
  const minGroups = scheme === 'got2' ? 2 : 1;
  const parts = planSections(problem, window, minGroups);
  const perSection = new Map<string, number>();
  for (const { state } of parts) {
    const key = `${state.section}/${state.piece ?? 0}`;
    perSection.set(key, (perSection.get(key) ?? 0) + 1);
  }
  const largestOverhead = Math.max(...parts.map(({ state }) => aggregateOverhead(nameOf(state))));
  const perPrompt = Math.max(2, Math.floor((contextTokens - largestOverhead - window.answerTokens) / window.answerTokens));
  const levels = aggregationLevels(Math.max(...perSection.values()), perPrompt);
  const params = { ...window };

  const operations: (PlainOp | ForEachOp)[] = [
    {
      id: 'sections',
      type: 'forEach',
      inputs: [],
      parts: { split: 'sections', params: minGroups > 1 ? { ...params, minGroups } : params },
      maxParts: parts.length,
      body: PART_BODIES[scheme](),
    },
  ];
  for (let level = 1; level <= levels; level++) {
    operations.push({
      id: `combine-${level}`,
      type: 'forEach',
      inputs: [operations.at(-1)!.id],
      parts: { split: 'bySection', params },
      maxParts: parts.length,
      body: combineBody(scheme),
    });
  }
  operations.push(
    { id: 'assemble', type: 'forEach', inputs: [operations.at(-1)!.id], parts: { split: 'assemble', params: {} }, maxParts: 1, body: [] },
    {
      id: 'final',
      type: 'score',
      inputs: ['assemble'],
      scorer: judgeWhole ? WHOLE_JUDGE : { kind: 'local' },
    },
  );
  return { version: 1, operations };
}
