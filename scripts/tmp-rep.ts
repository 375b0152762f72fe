import { reviewMerge } from '../src/documents/review';
import { alignClauses } from '../src/tasks/doc-merge/clause-groups/align';
import { joinGroups } from '../src/tasks/doc-merge/clause-groups/scheme';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';

const room = generateDataRoom(Number(process.argv[2] ?? 4), Number(process.argv[3] ?? 20000), 1);
const a = alignClauses(room.documents);
const states = a.groups.map((g, group) => ({ group, documents: g.members.map((m) => m.document), merged: g.members[0]!.text }));
const merged = joinGroups(states, room);
const review = reviewMerge(room, merged);
console.log('groups', a.groups.length, 'counts', review.counts, 'kept', review.retention);
const rep = review.clauses.filter((c: any) => c.repeats !== undefined).slice(0, 8);
for (const c of rep as any[])
  console.log(
    'REPEAT',
    merged.slice(c.start, c.end).slice(0, 110),
    '\n   OF',
    merged.slice(review.clauses[c.repeats]!.start, review.clauses[c.repeats]!.end).slice(0, 110),
  );

import { proxyRatings } from '../src/tasks/doc-merge/score';

console.log('proxy of first-member join', proxyRatings(room.documents, merged));
