import { describe, expect, it } from 'vitest';
import { reviewMerge } from '../src/documents/review';
import { docMergeResponder } from '../src/simllm/doc-merge';
import { docMergeTask } from '../src/tasks/doc-merge';
import { alignClauses, saySame } from '../src/tasks/doc-merge/clause-groups/align';
import { improveClausePrompt, mergeClausePrompt } from '../src/tasks/doc-merge/clause-groups/prompts';
import { joinGroups } from '../src/tasks/doc-merge/clause-groups/scheme';
import { groupScore, parseClauseAnswer, settledClause, unsupportedShare } from '../src/tasks/doc-merge/clause-groups/task';
import { keptValues, otherValuesIn } from '../src/tasks/doc-merge/clause-groups/values';
import { measuredMergeScore } from '../src/tasks/doc-merge/score';
import { clauseRoom } from './support/clause-room';
import { runSectioned } from './support/sectioned-run';

/** Two NDAs whose clause groups are known (test/support/clause-room.ts). */
const room = clauseRoom();
const [A, B] = room.documents as [string, string];

describe('the clause aligner', () => {
  const { title, groups } = alignClauses(room.documents);
  const of = (word: string) => groups.filter((g) => g.members.some((m) => m.text.includes(word)));

  it('takes one title from the first document and groups each term once, in the documents order', () => {
    expect(title).toBe('NON-DISCLOSURE AGREEMENT');
    const sources = room.documents.map((d) => d.split('\n').filter((l) => l.trim() && !/^\d+\.|AGREEMENT$/.test(l)).length);
    // Every source clause is in exactly one group.
    expect(groups.reduce((n, g) => n + g.members.length, 0)).toBe(sources[0]! + sources[1]!);
    for (const word of ['joint venture', 'secret', 'force for', 'returns or destroys', 'laws of Ireland']) expect(of(word)).toHaveLength(1);
    const order = ['joint venture', 'secret', 'force for', 'returns or destroys', 'laws of Ireland'].map((w) => groups.indexOf(of(w)[0]!));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('marks identical and lone groups as saying the same thing, and reworded or disagreeing ones not', () => {
    expect(of('joint venture')[0]!.same).toBe(true);
    expect(of('laws of Ireland')[0]!.same).toBe(true);
    expect(of('returns or destroys')[0]).toMatchObject({ same: true, members: [{ document: 1 }] });
    expect(of('secret')[0]).toMatchObject({ same: false });
    expect(of('secret')[0]!.members.map((m) => m.document)).toEqual([0, 1]);
    expect(of('force for')[0]!.same).toBe(false);
  });

  it('names each heading once, the groups under it together', () => {
    const headings = groups.map((g) => g.heading);
    const runs = headings.filter((h, i) => h !== headings[i - 1]);
    expect(new Set(runs).size).toBe(runs.length);
  });

  it('tells a number or a place apart though the words are the same', () => {
    const m = (document: number, text: string) => ({ document, clause: 0, text });
    expect(saySame([m(0, 'The fee is 200 dollars per breach.'), m(1, 'The fee is 200 dollars per breach.')])).toBe(true);
    expect(saySame([m(0, 'The fee is 200 dollars per breach.'), m(1, 'The fee is 300 dollars per breach.')])).toBe(false);
    // A place, a name: the words alike, the term not.
    expect(
      saySame([m(0, 'This agreement is governed by the laws of Ireland.'), m(1, 'This agreement is governed by the laws of France.')]),
    ).toBe(false);
  });
});

describe('the clause scheme on the simulator', () => {
  const goo = docMergeTask.schemes.clauses!({ size: 2, problem: room });

  it('the simulated LLM answers the group prompts with one clause', () => {
    const clauses = ['The Recipient keeps it secret.', 'The Receiving Party holds it in strict confidence.'];
    expect(docMergeResponder(mergeClausePrompt('Confidentiality', clauses))?.kind).toBe('doc-merge.mergeClause');
    expect(docMergeResponder(improveClausePrompt('Confidentiality', clauses, 'x.'))?.kind).toBe('doc-merge.improveClause');
  });

  it('merges every group once, asks nothing of groups that say the same, and the review finds the disagreement', () => {
    const { groups } = alignClauses(room.documents);
    const open = groups.filter((g) => !g.same).length;
    const run = runSectioned(goo as never, room, 3);
    const merged = run.final[0]!.state.merged as string;
    expect(merged.split('\n')[0]).toBe('NON-DISCLOSURE AGREEMENT');
    for (const line of [
      'The parties share information to evaluate a joint venture',
      'governed by the laws of Ireland',
      'returns or destroys',
    ])
      expect(merged.split(line).length - 1, line).toBe(1);
    // One merge prompt per open group (its 3 candidates), at most one improvement prompt each, the judge
    // once on the whole; nothing for the 3 groups that say the same.
    expect(groups.length - open).toBe(3);
    expect(run.calls).toBeGreaterThanOrEqual(open + 1);
    expect(run.calls).toBeLessThanOrEqual(2 * open + 1);
    const review = reviewMerge(room, merged);
    expect(review.disagreements.length).toBeGreaterThan(0);
    expect(review.retention!.every((r) => r.kept / r.clauses >= 0.5)).toBe(true);
  });

  it('scores a group clause by what it keeps and lowers it for what no member says', () => {
    const problem = room;
    const state = { group: 0, documents: [0, 1] };
    const g = alignClauses(problem.documents).groups.findIndex((x) => !x.same);
    const members = alignClauses(problem.documents).groups[g]!.members.map((m) => m.text);
    const full = groupScore({ ...state, group: g, merged: members.join(' ') }, problem);
    const invented = `${members[0]} Each party shall appoint a compliance officer who reviews adherence every quarter.`;
    expect(unsupportedShare(members, invented)).toBeGreaterThan(0);
    expect(groupScore({ ...state, group: g, merged: invented }, problem)).toBeLessThan(full);
  });

  it('writes its headings as headings: the review counts none of them as a clause (decision 99)', () => {
    const { groups } = alignClauses(room.documents);
    const states = groups.map((g, group) => ({ group, documents: g.members.map((m) => m.document), merged: g.members[0]!.text }));
    const merged = joinGroups(states, room);
    const review = reviewMerge(room, merged);
    const headings = new Set(groups.map((g) => g.heading));
    expect(review.clauses.filter((c) => headings.has(merged.slice(c.start, c.end).trim()))).toEqual([]);
    expect(review.counts.unsupported).toBe(0);
  });

  it('leaves out lines of its prompt that a model gives back in its clause', () => {
    const g = alignClauses(room.documents).groups.findIndex((x) => !x.same);
    const req = { prompt: 'mergeClause' as const, thoughts: [{ group: g, documents: [0, 1] }], params: {} };
    const [parsed] = parseClauseAnswer(req as never, room, '<Merged>\nThe 2 clauses to merge:\nThe Recipient keeps it secret.\n</Merged>');
    expect(parsed!.state.merged).toBe('The Recipient keeps it secret.');
  });

  it('joins group clauses in reading order under their headings, skipping none it has', () => {
    const { groups } = alignClauses(room.documents);
    const states = groups.map((g, group) => ({ group, documents: g.members.map((m) => m.document), merged: `Clause ${group}.` }));
    const text = joinGroups([...states].reverse(), room);
    const at = states.map((s) => text.indexOf(s.merged));
    expect(at.every((i) => i > 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });
});

describe('a disagreeing clause group', () => {
  const texts = [
    'This agreement remains in force for five years.',
    'This agreement remains in force for two years from signature.',
    'The agreement stays in force for two years.',
  ];

  it('is written with the value most members state, the others left to the reviewer', () => {
    const values = keptValues(texts)!;
    expect(values.base).toBe(1);
    expect(values.others).toHaveLength(1);
    expect(otherValuesIn('It remains in force for five years.', values.others)).toBe(1);
    expect(otherValuesIn('It remains in force for two years.', values.others)).toBe(0);
    expect(keptValues(['Fees are $100.', 'Fees are $100 a month.'])).toBeUndefined();
    // A template's blank and another version's name disagree, as the review says; two blanks do not.
    const parties = [
      'Agreement between [Company Name] and [Recipient Name].',
      'Agreement between [Acme Ltd] and [Birch Labs].',
      'Made between [Acme Ltd] and [Birch Labs].',
    ];
    expect(keptValues(parties)).toMatchObject({ base: 1, others: ['party:[placeholder]'] });
    expect(keptValues(['Signed on [Date].', 'Signed on [Effective Date].'])).toBeUndefined();
  });

  it('puts that member first in its prompt and asks for its values only', () => {
    const merged = mergeClausePrompt('Term', [texts[1]!, texts[0]!, texts[2]!], true);
    expect(merged).toContain('values of the first clause (Doc1) only');
    expect(mergeClausePrompt('Term', texts)).not.toContain('values of the first clause');
  });

  it('scores a clause that states both values below one that states the kept value', () => {
    const problem = room;
    const g = alignClauses(problem.documents).groups.findIndex((x) => x.members.some((m) => m.text.includes('force for')));
    const group = alignClauses(problem.documents).groups[g]!;
    // Two members, two values: the first document's on the tie.
    expect(group.values).toMatchObject({ base: 0 });
    const state = { group: g, documents: [0, 1] };
    const one = groupScore({ ...state, merged: 'This agreement remains in force for two years from the date of signature.' }, problem);
    const both = groupScore(
      { ...state, merged: 'This agreement remains in force for two years or five years from the date of signature.' },
      problem,
    );
    expect(one).toBeGreaterThan(both);
    const review = reviewMerge(
      problem,
      `${A.split('\n3. Term')[0]}\n\n3. Term\nThis agreement remains in force for two years from the date of signature.`,
    );
    const term = review.disagreements.find((d) => d.kind === 'duration')!;
    expect(new Set(term.kept.map((k) => k.normalized)).size).toBe(1);
  });
});

describe('a merged group clause as the merge states it', () => {
  const { groups } = alignClauses(room.documents);
  const secret = groups.find((g) => g.members.some((m) => m.text.includes('secret')))!;
  const term = groups.find((g) => g.members.some((m) => m.text.includes('force for')))!;

  it('gets a lost member clause back word for word', () => {
    const [a, b] = secret.members.map((m) => m.text);
    expect(settledClause(a!, secret)).toEqual({ clause: `${a} ${b}`, restored: 1, fromBase: false });
    expect(settledClause(`${a} ${b}`, secret).restored).toBe(0);
  });

  it('sees every party line of a merged clause, not only its first', () => {
    const lines = ['Agreement between [Company Name] and [Recipient Name].', 'Agreement between [Acme Ltd] and [Birch Labs].'];
    const values = keptValues([...lines, 'Made between [Acme Ltd] and [Birch Labs].'])!;
    // The base is a named version (two of three); the blank line is the value the merge must not state.
    expect(otherValuesIn(lines.join(' '), values.others)).toBe(1);
    expect(otherValuesIn([...lines].reverse().join(' '), values.others)).toBe(1);
  });

  it("states one value where the members disagree: the model's when it kept one, else the base member's", () => {
    const two = 'This agreement remains in force for two years from the date of signature.';
    // The five-year clause is not put back beside the two-year one.
    expect(settledClause(two, term)).toEqual({ clause: two, restored: 0, fromBase: false });
    const both = settledClause('This agreement remains in force for two years or five years from signature.', term);
    expect(both).toMatchObject({ fromBase: true, restored: 0 });
    expect(both.clause).toBe(term.members[term.values!.base]!.text);
  });
});

describe("the clause merge's joined document", () => {
  it('is scored by the review measures: what it keeps of the sources, what it says twice', () => {
    const whole = `${A}\n\n${B}`;
    const joined = { documents: [0, 1], joined: true, merged: whole };
    // Everything kept, but the word-for-word clauses said twice: the repeats pull it down.
    expect(docMergeTask.score!(joined, room)).toBeCloseTo(measuredMergeScore(room.documents, whole), 10);
    expect(measuredMergeScore(room.documents, whole)).toBeLessThan(measuredMergeScore(room.documents, B));
    expect(measuredMergeScore(room.documents, A)).toBeLessThan(10);
  });
});

describe('the values of a whole merge', () => {
  it('come from one base document where they can: the one most often its groups majority', () => {
    const version = (term: string, fee: string, law: string) =>
      `1. Term\nThis agreement remains in force for ${term} from signature.\n\n2. Fees\nEach breach costs a fee of ${fee}.\n\n3. Law\nThis agreement is governed by the laws of ${law}.`;
    const documents = [
      version('two years', '$100', 'Ireland'),
      version('five years', '$200', 'Ireland'),
      version('five years', '$200', 'France'),
    ];
    const { groups } = alignClauses(documents);
    const baseOf = (word: string) => {
      const g = groups.find((x) => x.members.some((m) => m.text.includes(word)))!;
      return g.values && g.members[g.values.base]!.document;
    };
    // Document 1 is the majority of the term and the fee: every group takes its values, the law's too.
    expect(baseOf('force for')).toBe(1);
    expect(baseOf('fee of')).toBe(1);
    expect(baseOf('laws of')).toBe(1);
  });
});
