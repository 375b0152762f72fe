/**
 * Prompts for merging documents section by section, built like the whole-document prompts
 * (`prompts.ts`: instruction, a small invented example, the real input last, the answer in
 * <Merged> tags), each opened by a stable marker sentence the simulated LLM recognises, and a
 * sentence naming the section.
 */

import { count, EXAMPLES_END, tagged } from './prompts';

export const SECTION_MARKERS = {
  mergeSection: 'Combine the versions of one section of several documents, given below, into one single section.',
  mergeSectionCot: 'Work step by step to fuse the versions of one section of several documents, given below, into a single section.',
  aggregateSection: 'Each draft below merges versions of the same section of several documents.',
  improveSection: 'Below is a draft of one section, made by merging the versions of that section found in several documents.',
  judgeSection: 'Rate how well the candidate section below merges the versions of that section given as sources.',
} as const;

/** The section a prompt is about, as the prompt names it. */
export interface SectionName {
  title: string;
  /** Which piece of a section cut into several: 0-based, of `pieces`. */
  piece?: number;
  pieces?: number;
}

/** How a prompt quotes a section's title (quotes in it become single quotes, so the title reads back whole). */
export function sectionLabel({ title, piece, pieces }: SectionName): string {
  const part = pieces !== undefined && pieces > 1 ? ` (part ${(piece ?? 0) + 1} of ${pieces})` : '';
  return `the section "${title.replace(/"/g, "'")}"${part}`;
}

const ANSWER_FORMAT =
  'Reply with the merged section alone, starting with its heading, enclosed in <Merged> and </Merged>, and nothing outside the tags.';

const EXAMPLE_VERSIONS = [
  '4. Payment\n4.1 The Customer pays each invoice within 30 days. 4.2 Late payments carry interest of 2% per month.',
  '5. PAYMENT TERMS\n5.1 Each invoice shall be paid within 30 days of its receipt. 5.2 The Supplier may suspend the services while an invoice is overdue.',
];
const EXAMPLE_MERGED =
  'Payment\nThe Customer pays each invoice within 30 days of its receipt. Late payments carry interest of 2% per month. The Supplier may suspend the services while an invoice is overdue.';

const exampleThenSources = (heading: string, sources: readonly string[]) => `<Merged>
${EXAMPLE_MERGED}
</Merged>
${EXAMPLES_END}

The ${heading}:

${tagged('Doc', sources)}`;

const opening = (marker: string, section: SectionName) => `${marker} This is ${sectionLabel(section)}.`;

export function mergeSectionPrompt(section: SectionName, sources: readonly string[]): string {
  return `<Instruction> ${opening(SECTION_MARKERS.mergeSection, section)} Keep every piece of information found in any version, and state each piece only once: where versions say the same thing in different words, write it a single time; where they differ (a number, a period), keep each variant. ${ANSWER_FORMAT} </Instruction>

<Examples>
${tagged('Doc', EXAMPLE_VERSIONS)}

${exampleThenSources(`${count(sources.length, 'version')} of ${sectionLabel(section)} to merge`, sources)}`;
}

export function mergeSectionCotPrompt(section: SectionName, sources: readonly string[]): string {
  return `<Instruction> ${opening(SECTION_MARKERS.mergeSectionCot, section)} The result must keep all information of the versions and must not say anything twice. Write your working notes first, then the merged section enclosed in <Merged> and </Merged>. </Instruction>

<Approach>
1. List the statements each version makes.
2. Mark statements that repeat one another in other words, and statements that differ in a detail.
3. Write the section once, stating every distinct statement exactly once and every differing detail.
4. Check that no statement of any version is missing and none appears twice.
</Approach>

<Examples>
${tagged('Doc', EXAMPLE_VERSIONS)}

Statements: payment within 30 days (Doc1, Doc2: same), interest on late payments (Doc1), suspension while overdue (Doc2).
${exampleThenSources(`${count(sources.length, 'version')} of ${sectionLabel(section)} to merge`, sources)}`;
}

/** Fusing drafts of one section that merged different documents' versions: the drafts are the whole input. */
export function aggregateSectionPrompt(section: SectionName, drafts: readonly string[]): string {
  return `<Instruction> ${opening(SECTION_MARKERS.aggregateSection, section)} Each draft merged the versions of other documents, so fuse the drafts into one section: take over every piece of information that any draft contains, and say each thing only once. ${ANSWER_FORMAT} </Instruction>

<Examples>
<Draft1>
Payment
The Customer pays each invoice within 30 days of its receipt. Late payments carry interest of 2% per month.
</Draft1>
<Draft2>
Payment Terms
Each invoice shall be paid within 30 days. The Supplier may suspend the services while an invoice is overdue.
</Draft2>
<Merged>
${EXAMPLE_MERGED}
</Merged>
${EXAMPLES_END}

The ${count(drafts.length, 'draft')} of ${sectionLabel(section)} to fuse:

${tagged('Draft', drafts)}`;
}

export function improveSectionPrompt(section: SectionName, sources: readonly string[], draft: string): string {
  return `<Instruction> ${opening(SECTION_MARKERS.improveSection, section)} Improve the draft: add the information of the versions that it leaves out, and delete the statements it repeats. ${ANSWER_FORMAT} </Instruction>

<Examples>
<Draft>
Payment
The Customer pays each invoice within 30 days. Each invoice shall be paid within 30 days of its receipt.
</Draft>
Missing: the interest on late payments and the suspension of the services. Repeated: the 30 days for payment.
${exampleThenSources(`${count(sources.length, 'version')} of ${sectionLabel(section)}`, sources)}

The draft to improve:

<Draft>
${draft}
</Draft>`;
}

/**
 * The judge of a section draft. `of` is how many documents have the section when `sources` are an
 * evenly spread sample of them (a draft over more versions than one prompt holds).
 */
export function judgeSectionPrompt(section: SectionName, sources: readonly string[], candidate: string, of = sources.length): string {
  const which =
    of > sources.length
      ? `${sources.length} of the ${of} versions of ${sectionLabel(section)}, spread over them`
      : `${count(sources.length, 'version')} of ${sectionLabel(section)}`;
  return `<Instruction> ${opening(SECTION_MARKERS.judgeSection, section)} Give it two marks from 0 to 10.
Redundancy: 10 means no statement of the candidate repeats another one; 0 means half of it or more is repetition. Judge this on the candidate alone.
Retained information: 10 means the candidate keeps everything the versions say; 0 means it keeps nothing of them.
You may explain your marks first; end with the two marks, as plain numbers, in exactly this form:
<Redundancy>mark</Redundancy>
<Retained>mark</Retained> </Instruction>

<Examples>
Versions: two payment sections. Candidate: a merge that states the 30 days for payment twice and omits the interest on late payments.
Answer: One of four statements is repeated and one of three source statements is missing.
<Redundancy>5</Redundancy>
<Retained>7</Retained>
${EXAMPLES_END}

The ${which}:

${tagged('Doc', sources)}

The candidate section:

<Candidate>
${candidate}
</Candidate>`;
}
