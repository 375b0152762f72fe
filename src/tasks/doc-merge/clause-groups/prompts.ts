/**
 * The two prompts of merging clause by clause (issue 38): one group of clauses that state the same
 * term in several versions of an agreement, merged into one clause; and a weak merge of a group
 * improved. Built like the other merge prompts (instruction with a stable marker sentence the
 * simulated LLM recognises, a small invented example, the real clauses last in <DocN> tags).
 */

import { count, EXAMPLES_END, tagged } from '../prompts';

export const CLAUSE_MARKERS = {
  mergeClause: 'Merge the clauses below, each taken from another version of one agreement, into one single clause.',
  improveClause: 'Below is a clause that was merged from the clauses of several versions of one agreement.',
} as const;

const ANSWER_FORMAT = 'Reply with the merged clause alone, enclosed in <Merged> and </Merged>, and nothing outside the tags.';

const EXAMPLE_CLAUSES = [
  'The Recipient keeps the designs secret for three years.',
  'Otter Labs must keep the designs confidential for 3 years and return all drawings on request.',
];
const EXAMPLE_MERGED = 'Otter Labs keeps the designs confidential for three years and returns all drawings on request.';

/** Where the clauses disagree, the merge states the first clause's values (the engine put it first, decision 97). */
const ONE_VALUE =
  ' The clauses state different values (an amount, a period, a date, a place or a name): state the values of the first clause (Doc1) only and no other, since a reviewer chooses between them.';

const where = (heading: string) => (heading ? ` They stand under the heading "${heading.replace(/"/g, "'")}".` : '');

export function mergeClausePrompt(heading: string, clauses: readonly string[], disagree = false): string {
  return `<Instruction> ${CLAUSE_MARKERS.mergeClause}${where(heading)} Keep every obligation, right, party, number and period that any of them states; say each thing once; add nothing that none of them says.${disagree ? ONE_VALUE : ''} ${ANSWER_FORMAT} </Instruction>

<Examples>
${tagged('Doc', EXAMPLE_CLAUSES)}
<Merged>
${EXAMPLE_MERGED}
</Merged>
${EXAMPLES_END}

The ${count(clauses.length, 'clause')} to merge:

${tagged('Doc', clauses)}`;
}

export function improveClausePrompt(heading: string, clauses: readonly string[], draft: string, disagree = false): string {
  return `<Instruction> ${CLAUSE_MARKERS.improveClause}${where(heading)} Improve it: add what the source clauses say and it leaves out, delete what it says twice or what no source clause says.${disagree ? ONE_VALUE : ''} ${ANSWER_FORMAT} </Instruction>

<Examples>
${tagged('Doc', EXAMPLE_CLAUSES)}
<Draft>
The Recipient keeps the designs secret for three years. Otter Labs keeps the designs confidential for 3 years.
</Draft>
<Merged>
${EXAMPLE_MERGED}
</Merged>
${EXAMPLES_END}

The ${count(clauses.length, 'source clause')}:

${tagged('Doc', clauses)}

The clause to improve:

<Draft>
${draft}
</Draft>`;
}
