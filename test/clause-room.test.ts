import { describe, expect, it } from 'vitest';
import { docMergeTask } from '../src/tasks/doc-merge';
import { generateClauseRoom } from '../src/tasks/doc-merge/contracts';
import { MAX_DOCUMENT_CHARS } from '../src/tasks/doc-merge/dataset';
import { PREAMBLE_TITLE, splitDocument } from '../src/tasks/doc-merge/headings';
import { alignDocuments } from '../src/tasks/doc-merge/sections';

describe('the clause-dense contract generator', () => {
  it('writes contracts of about a million characters with 999 numbered clauses, each a section the task finds', () => {
    const room = generateClauseRoom(3, 990_000, 999, 1);
    expect(docMergeTask.problem.safeParse(room).success).toBe(true);
    for (const text of room.documents) {
      expect(text.length).toBeGreaterThan(0.97 * 990_000);
      expect(text.length).toBeLessThan(1.03 * 990_000);
      expect(text.length).toBeLessThanOrEqual(MAX_DOCUMENT_CHARS);
      const sections = splitDocument(text);
      // The preamble (title and parties), then clauses 1 to 999 in order, each titled.
      expect(sections[0]!.title).toBe(PREAMBLE_TITLE);
      expect(sections.slice(1).map((s) => s.number)).toEqual(Array.from({ length: 999 }, (_, i) => i + 1));
      expect(sections.slice(1).every((s) => s.title.length > 0)).toBe(true);
    }
  });

  it('is reproducible, and its contracts differ a little: the same clauses, some worded differently', () => {
    const room = generateClauseRoom(2, 60_000, 120, 7);
    expect(room).toEqual(generateClauseRoom(2, 60_000, 120, 7));
    expect(room).not.toEqual(generateClauseRoom(2, 60_000, 120, 8));
    const [a, b] = room.documents as [string, string];
    expect(a).not.toBe(b);
    for (const text of room.documents) expect(Math.abs(text.length - 60_000)).toBeLessThan(0.03 * 60_000);
    // Every clause is one aligned section in both contracts; not every one is worded the same.
    const { sections } = alignDocuments(room.documents);
    expect(sections).toHaveLength(121);
    expect(sections.every((s) => s.spans[0] && s.spans[1])).toBe(true);
    // Clause bodies, after the heading line (the contracts may write headings in capitals).
    const bodies = sections
      .slice(1)
      .map((s) => s.spans.map((span, d) => room.documents[d]!.slice(span!.start, span!.end).replace(/^.*\n/, '')));
    const differing = bodies.filter(([x, y]) => x !== y).length;
    expect(differing).toBeGreaterThan(20);
    expect(differing).toBeLessThan(100);
  });

  it('refuses what it cannot make', () => {
    expect(() => generateClauseRoom(2, 990_000, 1000, 0)).toThrow(/2 to 999 clauses/);
    expect(() => generateClauseRoom(2, 1_000_001, 999, 0)).toThrow(/characters/);
    expect(() => generateClauseRoom(201, 100_000, 100, 0)).toThrow(/2 to 200 documents/);
  });
});
