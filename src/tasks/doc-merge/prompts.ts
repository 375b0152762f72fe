/**
 * Prompts for merging NDAs, structured as in the paper's appendix E (instruction, approach for the
 * step-by-step variant, a small invented example, then the real documents last) and worded for
 * this project. The marker sentence opening each instruction is stable: the simulated LLM
 * recognises the prompt by it, and reads the real input after the examples.
 */

export const DOC_MERGE_MARKERS = {
  merge: 'Combine the non-disclosure agreements (NDAs) given below into one single NDA.',
  mergeCot: 'Work step by step to fuse the non-disclosure agreements (NDAs) given below into a single NDA.',
  aggregate: 'Each draft below is an attempt at merging the same set of source NDAs.',
  improve: 'Below is a draft NDA that was produced by merging several source NDAs.',
  judge: 'Rate how well the candidate NDA below merges the source NDAs.',
} as const;

/** Where the examples end: everything after it is the real input. */
export const EXAMPLES_END = '</Examples>';

const ANSWER_FORMAT = 'Reply with the NDA alone, enclosed in <Merged> and </Merged>, and nothing outside the tags.';

/** The parties of the prompts' invented example: a merge naming them where no source does copied the example. */
export const EXAMPLE_PARTIES = ['Greenleaf Ltd', 'Otter Labs'] as const;

const EXAMPLE_DOCS = [
  'NDA\nGreenleaf Ltd will show its soil sensor designs to Otter Labs for a pilot project. Otter Labs keeps the designs secret for three years.\nThe laws of Ireland apply.',
  'CONFIDENTIALITY AGREEMENT\nOtter Labs must keep the soil sensor designs of Greenleaf Ltd confidential for three years. Otter Labs returns all drawings when Greenleaf Ltd asks for them.',
];
const EXAMPLE_MERGED =
  'NON-DISCLOSURE AGREEMENT\nGreenleaf Ltd will show its soil sensor designs to Otter Labs for a pilot project. Otter Labs keeps the designs secret for three years and returns all drawings when Greenleaf Ltd asks for them.\nThe laws of Ireland apply.';

/** Texts in numbered tags: `<Doc1>…</Doc1>`, `<Doc2>…`. */
export const tagged = (tag: string, texts: readonly string[]) =>
  texts.map((t, i) => `<${tag}${i + 1}>\n${t}\n</${tag}${i + 1}>`).join('\n\n');
/** "1 NDA", "4 NDAs". */
export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** How every example but the judge's ends (with the merged NDA), then the real input: the source documents under a heading. */
const mergedExampleThenSources = (heading: string, documents: readonly string[]) => `<Merged>
${EXAMPLE_MERGED}
</Merged>
${EXAMPLES_END}

The ${heading}:

${tagged('Doc', documents)}`;

export function mergePrompt(documents: readonly string[]): string {
  return `<Instruction> ${DOC_MERGE_MARKERS.merge} Keep every piece of information found in any of them, and state each piece only once: where the NDAs say the same thing in different words, write it a single time. ${ANSWER_FORMAT} </Instruction>

<Examples>
${tagged('Doc', EXAMPLE_DOCS)}

${mergedExampleThenSources(`${count(documents.length, 'NDA')} to merge`, documents)}`;
}

export function mergeCotPrompt(documents: readonly string[]): string {
  return `<Instruction> ${DOC_MERGE_MARKERS.mergeCot} The result must keep all information of the sources and must not say anything twice. Write your working notes first, then the merged NDA enclosed in <Merged> and </Merged>. </Instruction>

<Approach>
1. List the topics the NDAs cover (parties, purpose, what is confidential, duties, exceptions, duration, remedies, law, ...).
2. For every topic, gather what each NDA says about it and mark statements that repeat one another.
3. Write one section per topic that states every distinct statement exactly once.
4. Check that no statement of any source is missing and none appears twice.
</Approach>

<Examples>
${tagged('Doc', EXAMPLE_DOCS)}

Topics: parties and purpose (Doc1), secrecy for three years (Doc1, Doc2: same statement), return of drawings (Doc2), governing law (Doc1).
${mergedExampleThenSources(`${count(documents.length, 'NDA')} to merge`, documents)}`;
}

export function aggregatePrompt(documents: readonly string[], drafts: readonly string[]): string {
  return `<Instruction> ${DOC_MERGE_MARKERS.aggregate} Fuse the drafts into one better NDA: take over every piece of information that any draft or source NDA contains, and say each thing only once. ${ANSWER_FORMAT} </Instruction>

<Examples>
Sources: the two NDAs of a soil sensor pilot.
<Draft1>
Greenleaf Ltd shows its soil sensor designs to Otter Labs, which keeps them secret for three years.
</Draft1>
<Draft2>
Otter Labs keeps the designs of Greenleaf Ltd confidential for three years and returns all drawings on request. The laws of Ireland apply.
</Draft2>
${mergedExampleThenSources(count(documents.length, 'source NDA'), documents)}

The ${count(drafts.length, 'draft')} to fuse:

${tagged('Draft', drafts)}`;
}

export function improvePrompt(documents: readonly string[], draft: string): string {
  return `<Instruction> ${DOC_MERGE_MARKERS.improve} Improve the draft: add the information of the source NDAs that it leaves out, and delete the statements it repeats. ${ANSWER_FORMAT} </Instruction>

<Examples>
<Draft>
Greenleaf Ltd will show its soil sensor designs to Otter Labs for a pilot project. Otter Labs keeps the designs secret for three years. Otter Labs must keep the designs confidential for three years.
</Draft>
Missing: the return of drawings and the governing law. Repeated: the three years of secrecy.
${mergedExampleThenSources(count(documents.length, 'source NDA'), documents)}

The draft to improve:

<Draft>
${draft}
</Draft>`;
}

export function judgePrompt(documents: readonly string[], candidate: string): string {
  return `<Instruction> ${DOC_MERGE_MARKERS.judge} Give it two marks from 0 to 10.
Redundancy: 10 means no statement of the candidate repeats another one; 0 means half of it or more is repetition. Judge this on the candidate alone.
Retained information: 10 means the candidate keeps everything the source NDAs say; 0 means it keeps nothing of them.
You may explain your marks first; end with the two marks, as plain numbers, in exactly this form:
<Redundancy>mark</Redundancy>
<Retained>mark</Retained> </Instruction>

<Examples>
Sources: the two NDAs of a soil sensor pilot. Candidate: a merge that states the three years of secrecy twice and omits the governing law.
Answer: One of five statements is repeated and one of five source statements is missing.
<Redundancy>6</Redundancy>
<Retained>8</Retained>
${EXAMPLES_END}

The ${count(documents.length, 'source NDA')}:

${tagged('Doc', documents)}

The candidate NDA:

<Candidate>
${candidate}
</Candidate>`;
}
