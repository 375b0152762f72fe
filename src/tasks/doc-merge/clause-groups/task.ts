import { splitClausesOnce } from '../../../documents/clauses';
import { SourceIndex, SUPPORTED_SIMILARITY } from '../../../documents/provenance';
import { ValidationError } from '../../../goo/validate';
import type { ThoughtState } from '../../../grs/types';
import { endOf } from '../../answer-schema';
import type { ParsedThought, PromptRequest } from '../../task';
import type { DocMergeProblem } from '../dataset';
import { readMerged } from '../parse';
import { harmonicMean, mergeScore, UNPARSEABLE_SCORE } from '../score';
import { alignClauses, type ClauseAlignment, type ClauseGroup, normalized } from './align';
import { improveClausePrompt, mergeClausePrompt } from './prompts';
import { otherValuesIn } from './values';

/**
 * Merging clause by clause on the task's side (issue 38): a group thought names its group by index in
 * the documents' clause alignment, which every step recomputes from the problem (remembered), so a
 * thought is a few numbers and its clause. The engine scores a candidate by what of the group's clauses
 * it keeps, what it repeats, and what it says that none of them says.
 */

export const CLAUSE_PROMPTS = ['mergeClause', 'improveClause'] as const;
export type ClausePrompt = (typeof CLAUSE_PROMPTS)[number];
export const isClausePrompt = (prompt: string): prompt is ClausePrompt => (CLAUSE_PROMPTS as readonly string[]).includes(prompt);

/** A thought about one clause group: its index, its documents, and (once merged or kept) its clause. */
export interface GroupState extends ThoughtState {
  group: number;
  documents: number[];
  merged?: string;
  /** The engine kept a member as it is (the members say the same thing): no model was asked. */
  kept?: true;
  untagged?: true;
}

const recent = new Map<string, ClauseAlignment>();

/** The problem's clause alignment, remembered for the last few problems (each step receives its problem anew). */
export function clauseAlignmentOf(documents: readonly string[]): ClauseAlignment {
  const key = documents.join('\u0000');
  let alignment = recent.get(key);
  if (!alignment) {
    alignment = alignClauses(documents);
    if (recent.size >= 4) recent.delete(recent.keys().next().value!);
    recent.set(key, alignment);
  }
  return alignment;
}

export const isGroupState = (s: ThoughtState): s is GroupState => Number.isInteger(s.group) && Array.isArray(s.documents);

/** A thought's group, checked against the problem; the error names the field. */
export function groupOf(state: ThoughtState, problem: DocMergeProblem): ClauseGroup {
  const groups = clauseAlignmentOf(problem.documents).groups;
  const g = (state as Partial<GroupState>).group;
  if (!Number.isInteger(g) || g! < 0 || g! >= groups.length)
    throw new ValidationError('clause group thought', [
      { path: 'state.group', message: `expected a group index from 0 to ${groups.length - 1}, got ${JSON.stringify(g)}` },
    ]);
  return groups[g!]!;
}

/**
 * The group's distinct wordings: a clause thirty contracts state word for word is read (and scored
 * against) once, not thirty times. Where the members disagree, the one whose values the merge keeps first.
 */
function textsOf(group: ClauseGroup): string[] {
  const base = group.values?.base ?? 0;
  const ordered = [group.members[base]!, ...group.members.filter((_, i) => i !== base)];
  const seen = new Set<string>();
  return ordered.map((m) => m.text).filter((t) => !seen.has(normalized(t)) && seen.add(normalized(t)));
}

export function clausePrompt(req: PromptRequest & { prompt: ClausePrompt }, problem: DocMergeProblem): string {
  const state = req.thoughts[0] ?? {};
  const group = groupOf(state, problem);
  const disagree = group.values !== undefined;
  return req.prompt === 'mergeClause'
    ? mergeClausePrompt(group.kind ?? group.heading, textsOf(group), disagree)
    : improveClausePrompt(group.kind ?? group.heading, textsOf(group), typeof state.merged === 'string' ? state.merged : '', disagree);
}

export function parseClauseAnswer(req: PromptRequest & { prompt: ClausePrompt }, problem: DocMergeProblem, text: string): ParsedThought[] {
  const input = req.thoughts[0] ?? {};
  const group = groupOf(input, problem);
  const state: GroupState = { group: input.group as number, documents: group.members.map((m) => m.document) };
  const answer = readMerged(text, textsOf(group));
  if (!answer.ok) return [{ state, valid: false, error: answer.error }];
  const merged = withoutPromptLines(answer.merged, clausePrompt(req, problem), textsOf(group));
  if (!merged) return [{ state, valid: false, error: 'the merged clause only repeats lines of the prompt' }];
  return [{ state: { ...state, merged, ...(answer.untagged ? { untagged: true as const } : {}) }, valid: true, ...endOf(answer) }];
}

/**
 * The clause without lines the model gave back from the prompt's own frame ("The 2 clauses to
 * merge:", the example's clause): they would stand in the contract as text. A line a source clause
 * has stays.
 */
function withoutPromptLines(merged: string, prompt: string, sources: readonly string[]): string {
  const own = new Set(
    prompt
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !sources.some((s) => s.includes(l))),
  );
  return merged
    .split('\n')
    .filter((l) => !own.has(l.trim()))
    .join('\n')
    .trim();
}

/** Share of a candidate's clauses that no clause of its group supports (the provenance's bar). */
export function unsupportedShare(sources: readonly string[], merged: string): number {
  const clauses = splitClausesOnce(merged).clauses;
  if (!clauses.length) return 0;
  const index = new SourceIndex(sources);
  return clauses.filter((c) => (index.match(c.text)[0]?.similarity ?? 0) < SUPPORTED_SIMILARITY).length / clauses.length;
}

/**
 * The engine's score of a group's clause, 0-10: the proxy of redundancy and retention against the
 * group's clauses (`mergeScore`), lowered by the share of what it says that no member says and, where
 * the members disagree, by the share of the values it must not state that it states.
 */
export function groupScore(state: GroupState, problem: DocMergeProblem): number {
  if (typeof state.merged !== 'string') return UNPARSEABLE_SCORE;
  const group = groupOf(state, problem);
  const sources = textsOf(group);
  const score = harmonicMean(mergeScore(sources, state.merged), 10 * (1 - unsupportedShare(sources, state.merged)));
  const others = group.values?.others ?? [];
  return others.length ? harmonicMean(score, 10 * (1 - otherValuesIn(state.merged, others) / others.length)) : score;
}

/**
 * A group's clause as the merge states it (decision 97). Where the members disagree and the model's
 * clause states a value the merge must not (small models keep every value whatever they are asked),
 * the engine takes the member whose values the merge keeps instead (`fromBase`); the disagreement
 * goes to review as always. Then a member clause the clause does not say (no clause of it at the
 * provenance's bar, as the review measures what a merge keeps) is put back after it word for word
 * (`restored`), unless it states such a value: nothing a source says is silently lost to a small
 * model's merge.
 */
export function settledClause(merged: string, group: ClauseGroup): { clause: string; restored: number; fromBase: boolean } {
  if (group.same) return { clause: merged, restored: 0, fromBase: false };
  const others = group.values?.others ?? [];
  const fromBase = otherValuesIn(merged, others) > 0;
  const clause = fromBase ? group.members[group.values!.base]!.text : merged;
  // Said as the review measures what a merge keeps (decisions 79 and 99): by a clause of it close in
  // words, or holding it whole; each member put back is then said for the next.
  const said: string[] = splitClausesOnce(clause).clauses.map((c) => c.text);
  const restored: string[] = [];
  for (const text of textsOf(group)) {
    if (otherValuesIn(text, others) > 0) continue;
    for (const { text: sentence } of splitClausesOnce(text).clauses) {
      if (new SourceIndex(said).says(sentence)) continue;
      restored.push(sentence.trim());
      said.push(sentence);
    }
  }
  return { clause: [clause.trim(), ...restored].join(' '), restored: restored.length, fromBase };
}
