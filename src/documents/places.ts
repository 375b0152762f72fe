import { type DocumentSection, splitDocument } from '../tasks/doc-merge/headings';

/**
 * Where a span of a document lies: its section (the task's sectioning, `splitDocument`) and its
 * pages (from a PDF's page starts). Shared by provenance and terms. Pure.
 */

/** The last documents' sections: a review finds them for provenance and again for the terms. */
const recentSections = new Map<string, DocumentSection[]>();
const RECENT_SECTIONS = 256;

/** A document's sections (`splitDocument`), remembered for the last few hundred documents. */
export function sectionsOf(text: string): DocumentSection[] {
  let sections = recentSections.get(text);
  if (!sections) {
    sections = splitDocument(text);
    if (recentSections.size >= RECENT_SECTIONS) recentSections.delete(recentSections.keys().next().value!);
    recentSections.set(text, sections);
  }
  return sections;
}

/** The title of the section holding `at`, if it has one (binary search: sections are in text order). */
export function sectionTitleAt(sections: readonly DocumentSection[], at: number): string | undefined {
  let lo = 0;
  let hi = sections.length - 1;
  let found: DocumentSection | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sections[mid]!.start <= at) {
      found = sections[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found && at < found.end && found.title ? found.title : undefined;
}

/** The pages (1-based) that `[start, end)` lies on, given where each page starts. */
export function pagesOf(pageStarts: readonly number[] | undefined, start: number, end: number): number[] | undefined {
  if (!pageStarts?.length) return undefined;
  const pageAt = (at: number) => {
    let lo = 0;
    let hi = pageStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (pageStarts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const first = pageAt(start);
  const last = pageAt(Math.max(start, end - 1));
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}
