import { describe, expect, it } from 'vitest';
import { docMergeResponder } from '../src/simllm/doc-merge';
import { docMergeTask } from '../src/tasks/doc-merge';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { extractMerged, parseRatings } from '../src/tasks/doc-merge/parse';
import { mergePrompt } from '../src/tasks/doc-merge/prompts';
import { informationUnits, mergeScore, proxyRatings } from '../src/tasks/doc-merge/score';
import {
  aggregateSectionPrompt,
  improveSectionPrompt,
  judgeSectionPrompt,
  mergeSectionCotPrompt,
  mergeSectionPrompt,
} from '../src/tasks/doc-merge/section-prompts';
import { alignmentOf, sectionTexts } from '../src/tasks/doc-merge/sections';
import type { AssembledState } from '../src/tasks/doc-merge/splits';
import { seededRandom } from '../src/util/random';
import { runSectioned } from './support/sectioned-run';

const answer = (prompt: string, seed: number) => docMergeResponder(prompt)!.answer(seededRandom(seed));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The versions of one section of a small data room, per seed. */
function versionsOf(seed: number): { title: string; versions: string[] } {
  const room = generateDataRoom(3, 30_000, seed);
  const { sections } = alignmentOf(room.documents);
  const section = sections.findIndex((s, i) => i > 0 && s.spans.every(Boolean));
  return { title: sections[section]!.title, versions: sectionTexts(room.documents, { section }) as string[] };
}

describe('the simulated LLM on section prompts', () => {
  it('recognises each section prompt', () => {
    const { title, versions } = versionsOf(1);
    const name = { title };
    expect(docMergeResponder(mergeSectionPrompt(name, versions))?.kind).toBe('doc-merge.mergeSection');
    expect(docMergeResponder(mergeSectionCotPrompt(name, versions))?.kind).toBe('doc-merge.mergeSectionCot');
    expect(docMergeResponder(aggregateSectionPrompt(name, ['a draft.', 'another.']))?.kind).toBe('doc-merge.aggregateSection');
    expect(docMergeResponder(improveSectionPrompt(name, versions, 'a draft.'))?.kind).toBe('doc-merge.improveSection');
    expect(docMergeResponder(judgeSectionPrompt(name, versions, 'a draft.'))?.kind).toBe('doc-merge.judgeSection');
  });

  it('merges a section as well as it merges whole documents of the same length, headed by its title', () => {
    const section: number[] = [];
    const whole: number[] = [];
    const sizes: number[] = [];
    for (let seed = 0; seed < 30; seed++) {
      const { title, versions } = versionsOf(seed);
      const merged = extractMerged(answer(mergeSectionPrompt({ title }, versions), seed));
      const plain = extractMerged(answer(mergePrompt(versions), seed));
      if (!merged || !plain) continue;
      expect(merged.split('\n')[0]).toBe(title);
      section.push(mergeScore(versions, merged));
      whole.push(mergeScore(versions, plain));
      // About the union of the versions, less what was forgotten: less than all of them together.
      expect(merged.length).toBeLessThan(versions.join('').length);
      sizes.push(merged.length / Math.max(...versions.map((v) => v.length)));
    }
    expect(section.length).toBeGreaterThan(25);
    expect(mean(sizes)).toBeGreaterThan(0.7);
    expect(Math.abs(mean(section) - mean(whole))).toBeLessThan(0.6);
    expect(mean(section)).toBeGreaterThan(3);
    expect(mean(section)).toBeLessThan(9.5);
  });

  it('fuses drafts of different documents into one that retains more of the section than each draft', () => {
    const before: number[] = [];
    const fused: number[] = [];
    for (let seed = 0; seed < 20; seed++) {
      const { title, versions } = versionsOf(50 + seed);
      // Each draft merges one document's version, as the groups of a tree's first level do.
      const drafts = versions.map((v, i) => extractMerged(answer(mergeSectionPrompt({ title }, [v]), 10 * seed + i)) ?? '');
      before.push(mean(drafts.map((d) => proxyRatings(versions, d).retention)));
      fused.push(proxyRatings(versions, extractMerged(answer(aggregateSectionPrompt({ title }, drafts), seed)) ?? '').retention);
    }
    expect(mean(fused)).toBeGreaterThan(mean(before) + 0.5);
  });

  it('improves a section draft and judges one close to the proxy', () => {
    const { title, versions } = versionsOf(7);
    const drafts = [0, 1, 2, 3, 4, 5].map((seed) => extractMerged(answer(mergeSectionPrompt({ title }, versions), seed)) ?? '');
    const improved = drafts.map((d, seed) => extractMerged(answer(improveSectionPrompt({ title }, versions, d), seed)) ?? '');
    expect(mean(improved.map((d) => mergeScore(versions, d)))).toBeGreaterThan(mean(drafts.map((d) => mergeScore(versions, d))));
    const truth = proxyRatings(versions, drafts[0]!);
    const marks = Array.from({ length: 30 }, (_, seed) =>
      parseRatings(answer(judgeSectionPrompt({ title }, versions, drafts[0]!), seed)),
    ).filter((m) => m !== undefined);
    expect(marks.length).toBeGreaterThan(25);
    for (const [redundancy, retention] of marks) {
      expect(Math.abs(redundancy - truth.redundancy)).toBeLessThanOrEqual(1.5);
      expect(Math.abs(retention - truth.retention)).toBeLessThanOrEqual(1.5);
    }
  });
});

describe('a sectioned merge on the simulated LLM', () => {
  const run = (scheme: string, count: number, contextTokens: number) => {
    const room = generateDataRoom(count, 30_000, 11);
    return { room, ...runSectioned(docMergeTask.schemes[scheme]!({ size: count, problem: room, contextTokens }) as never, room, 5) };
  };

  it('ends with one document over all sources, every section in order, and a measurable score', () => {
    // Twelve contracts in 4,096 tokens: several groups per section, so aggregation levels run.
    const { room, final, calls } = run('io', 12, 4_096);
    expect(final).toHaveLength(1);
    const state = final[0]!.state as AssembledState;
    expect(state.documents).toEqual(room.documents.map((_, i) => i));
    const sections = alignmentOf(room.documents).sections.length;
    expect(new Set(state.outline.map((e) => e.section)).size).toBe(sections);
    expect(state.outline.map((e) => e.section)).toEqual([...state.outline.map((e) => e.section)].sort((a, b) => a - b));
    expect(calls).toBeGreaterThan(2 * sections);
    const score = final[0]!.score!;
    expect(score).toBeGreaterThan(3);
    expect(score).toBeLessThan(9.5);
    // The merged document is shorter than the sources together and keeps most of their distinct statements.
    expect(state.merged!.length).toBeLessThan(room.documents.join('').length / 2);
    expect(informationUnits([state.merged!]).units.length).toBeGreaterThan(0.3 * informationUnits(room.documents).units.length);
  });

  it('ranks the schemes as whole documents do: GoT above IO', () => {
    expect(run('got', 6, 8_192).final[0]!.score!).toBeGreaterThan(run('io', 6, 8_192).final[0]!.score! + 1);
  });
});
