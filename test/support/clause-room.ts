/**
 * Two NDAs whose clause groups are known (as in test/doc-merge-clauses.test.ts): Purpose and Governing
 * Law word for word in both, Confidentiality reworded (merged by the model), Term disagreeing (two
 * years, five years), Return of Materials in the second only.
 */
export const clauseRoom = () => ({ documents: [CLAUSE_A, CLAUSE_B] });

/** The index of the reworded Confidentiality group among the room's clause groups is found by its word "secret". */
export const CONFIDENTIALITY_WORD = 'secret';

const CLAUSE_A = `NON-DISCLOSURE AGREEMENT

1. Purpose
The parties share information to evaluate a joint venture in solar storage.

2. Confidentiality
The Recipient shall keep all Confidential Information secret and use it only for the Purpose.

3. Term
This agreement remains in force for two years from the date of signature.

4. Governing Law
This agreement is governed by the laws of Ireland.`;

const CLAUSE_B = `CONFIDENTIALITY AGREEMENT

1. Purpose
The parties share information to evaluate a joint venture in solar storage.

2. Confidentiality
The Receiving Party must hold every piece of confidential information in strict confidence and may not disclose it to third parties.

3. Term
This agreement remains in force for five years from the date of signature.

4. Return of Materials
On request the Receiving Party returns or destroys all documents it received.

5. Governing Law
This agreement is governed by the laws of Ireland.`;
