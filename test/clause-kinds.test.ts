import { describe, expect, it } from 'vitest';
import { clauseKind } from '../src/documents/clause-kinds';

const kind = (text: string, heading?: string) => clauseKind(text, heading)?.id;

describe('a clause kind', () => {
  it('is the same for one term in other words', () => {
    for (const [id, versions] of [
      [
        'law',
        ['This contract follows the laws of [State].', 'Governed as per [State] legal framework.', 'The courts of Ohio apply to it.'],
      ],
      ['remedies', ['Each breach costs a fee of $10,000.', 'A fine of $12,000 for every violation.', 'Injunctive relief is available.']],
      ['entire', ['This is the whole agreement of the parties.', 'It supersedes all prior understandings.', 'Complete and sole accord.']],
      ['signature', ['Signed on [Date].', 'Confirmed and endorsed by both sides.', 'Executed as of the date above.']],
      [
        'use',
        ['Employ it solely for the stated aim.', 'Use the information only for the project.', 'Utilize strictly for joint ventures.'],
      ],
    ] as const)
      for (const text of versions) expect(kind(text), text).toBe(id);
  });

  it('takes the specific kind before the general one a clause also names', () => {
    expect(kind('Binding for both parties and any successors.')).toBe('successors');
    expect(kind('Changes to this agreement must be in writing and signed by both parties.')).toBe('amendment');
    expect(kind('The duties of confidentiality persist after termination.')).toBe('survival');
  });

  it('falls back on the heading, and a confidentiality word comes last', () => {
    expect(kind('To keep data safe during talks of an alliance.', 'Objective')).toBe('purpose');
    expect(kind('Uphold confidentiality, ensuring data integrity.', 'Commitments of Recipient')).toBe('nonDisclosure');
    expect(kind('Proprietary computational algorithms.', 'Specification of Protected Information')).toBe('definition');
    expect(kind('Intellectual property awaiting patents.', 'Categorization of Sensitive Data')).toBe('definition');
    expect(kind('The sky is blue.')).toBeUndefined();
  });
});
