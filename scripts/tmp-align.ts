import { readFileSync } from 'node:fs';
import { alignClauses } from '../src/tasks/doc-merge/clause-groups/align';
import { getTask } from '../src/tasks/registry';

const task = getTask('doc-merge');
const rows = task.parseDataset(readFileSync('/work/shared/data/got-examples/documents.csv', 'utf8'));
const row = rows[Number(process.argv[2] ?? 0)] as any;
const docs = row.problem?.documents ?? row.documents;
const a = alignClauses(docs);
console.log('title', a.title, 'groups', a.groups.length);
a.groups.forEach((g, i) => {
  console.log(`#${i} [${g.heading}] same=${g.same}`);
  for (const m of g.members) console.log(`   d${m.document}.${m.clause}: ${m.text.slice(0, 110).replace(/\n/g, ' ')}`);
});

import { clauseKind } from '../src/documents/clause-kinds';
import { splitClausesOnce } from '../src/documents/clauses';

if (process.env.KINDS)
  docs.forEach((d: string, i: number) => {
    for (const c of splitClausesOnce(d).clauses)
      console.log(`d${i} [${c.heading ?? ''}] ${clauseKind(c.text, c.heading)?.id ?? '-'} :: ${c.text.slice(0, 90)}`);
  });
