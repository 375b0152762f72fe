import { withoutRepeats } from '../../../documents/repeats';
import type { GoO, Operation } from '../../../goo/schema';
import type { ThoughtState } from '../../../grs/types';
import type { Part } from '../../task';
import { DocMergeProblem } from '../dataset';
import { PREAMBLE_TITLE } from '../headings';
import { clauseAlignmentOf, type GroupState, groupScore, isGroupState, settledClause } from './task';

/**
 * The `clauses` scheme (issue 38): the engine aligns the documents' clauses into groups that state one
 * term; a group whose members say the same thing keeps one of them without a call; each other group is
 * merged by the model in a small prompt (GoT: candidates generated, scored by the engine, the best kept,
 * a weak best improved); the groups' clauses are joined in reading order. Four forEach operations over
 * the task's splits, so it is data for the Controller as it is (no workflow change):
 *
 *   groups  (split clauseGroups, no body)   one thought per group; a same-saying group's is already merged
 *   merge   (split openGroups)              kept groups pass; the others: generate k, score, keep best
 *   improve (split weakClauses)             strong clauses pass; weak ones: improve k, keep the best so far
 *   join    (split joinClauses, no body)    the merged document, each clause settled; `final` scores it
 */

/** A group's best clause below this engine score is improved; at it or above it is kept as it is. */
export const WEAK_BELOW = 9;
/** Parts planned when the problem is not known yet (a listing of the scheme): the most groups a GoO is sized for. */
const UNKNOWN_GROUPS = 1000;

/** `clauseGroups`: one new thought per clause group, in reading order; a same-saying group's clause is its first member. */
function clauseGroupsSplit(_inputs: ThoughtState[], problem: DocMergeProblem): Part[] {
  return clauseAlignmentOf(problem.documents).groups.map((g, group): Part => {
    const state: GroupState = { group, documents: g.members.map((m) => m.document) };
    return { state: g.same ? { ...state, merged: g.members[0]!.text, kept: true } : state };
  });
}

/** `openGroups`: a group the engine kept passes through (no call); every other group runs the body. */
function openGroupsSplit(inputs: ThoughtState[]): Part[] {
  return inputs.map((s, i): Part => (isGroupState(s) && s.kept ? { keep: [i] } : { thoughts: [i] }));
}

/** `weakClauses`: a group's clause the engine scores at WEAK_BELOW or above passes; a weaker one is improved. */
function weakClausesSplit(inputs: ThoughtState[], problem: DocMergeProblem): Part[] {
  return inputs.map(
    (s, i): Part => (!isGroupState(s) || s.kept || groupScore(s, problem) >= WEAK_BELOW ? { keep: [i] } : { thoughts: [i] }),
  );
}

/**
 * The merged document: the first document's title, then each group's clause as settled (one value
 * where the members disagree, the member clauses its merge lost put back: `settledClause`) in reading
 * order under its section's heading.
 */
export function joinGroups(states: readonly GroupState[], problem: DocMergeProblem): string {
  const { title, groups } = clauseAlignmentOf(problem.documents);
  const byGroup = new Map(states.filter((s) => typeof s.merged === 'string').map((s) => [s.group, s.merged!]));
  const lines: string[] = title ? [title, ''] : [];
  let heading: string | undefined;
  groups.forEach((g, i) => {
    const merged = byGroup.get(i);
    if (merged === undefined) return;
    const { clause } = settledClause(merged, g);
    if (g.heading !== heading && g.heading && g.heading !== PREAMBLE_TITLE) lines.push(...(lines.length ? [''] : []), g.heading);
    heading = g.heading;
    lines.push(clause.trim());
  });
  // Nothing said twice: a clause a group's merge or another group already says goes (decision 99).
  return withoutRepeats(lines.join('\n').trim()).text;
}

/** `joinClauses`: one thought, the merge of all documents. */
function joinClausesSplit(inputs: ThoughtState[], problem: DocMergeProblem): Part[] {
  const merged = joinGroups(inputs.filter(isGroupState), problem);
  return [{ state: { documents: problem.documents.map((_, i) => i), joined: true, ...(merged ? { merged } : {}) } }];
}

export const clauseSplits = {
  clauseGroups: clauseGroupsSplit,
  openGroups: openGroupsSplit,
  weakClauses: weakClausesSplit,
  joinClauses: joinClausesSplit,
};

const local = { kind: 'local' } as const;

/**
 * The scheme's GoO. `candidates`: merges asked per group; `improvements`: improvements of a weak one;
 * `judgeWhole`: the joined merge is rated by the paper's judge (where its prompt fits the window), else by the engine.
 */
export function clauseScheme(
  problem: DocMergeProblem | undefined,
  { candidates, improvements, judgeWhole }: { candidates: number; improvements: number; judgeWhole: boolean },
): GoO {
  const known = problem !== undefined && DocMergeProblem.safeParse(problem).success;
  const parts = Math.max(1, known ? clauseAlignmentOf(problem.documents).groups.length : UNKNOWN_GROUPS);
  const operations: Operation[] = [
    { id: 'groups', type: 'forEach', inputs: [], parts: { split: 'clauseGroups', params: {} }, maxParts: parts, body: [] },
    {
      id: 'merge',
      type: 'forEach',
      inputs: ['groups'],
      parts: { split: 'openGroups', params: {} },
      maxParts: parts,
      body: [
        { id: 'merge', type: 'generate', inputs: [], prompt: 'mergeClause', k: candidates },
        { id: 'score', type: 'score', inputs: ['merge'], scorer: local },
        { id: 'best', type: 'keepBestN', inputs: ['score'], n: 1, higherIsBetter: true },
      ],
    },
    {
      id: 'improve',
      type: 'forEach',
      inputs: ['merge'],
      parts: { split: 'weakClauses', params: {} },
      maxParts: parts,
      body: [
        { id: 'again', type: 'score', inputs: [], scorer: local },
        { id: 'improve', type: 'generate', inputs: [], prompt: 'improveClause', k: improvements },
        { id: 'score', type: 'score', inputs: ['improve'], scorer: local },
        { id: 'best', type: 'keepBestN', inputs: ['score', 'again'], n: 1, higherIsBetter: true },
      ],
    },
    { id: 'join', type: 'forEach', inputs: ['improve'], parts: { split: 'joinClauses', params: {} }, maxParts: 1, body: [] },
    {
      id: 'final',
      type: 'score',
      inputs: ['join'],
      scorer: judgeWhole ? { kind: 'llm', prompt: 'judge', samples: 3 } : local,
    },
  ];
  return { version: 1, operations } as GoO;
}
