import { alignClauses } from '/work/main/src/tasks/doc-merge/clause-groups/align';
import { generateDataRoom } from '/work/main/src/tasks/doc-merge/contracts';

const n = Number(process.argv[2] ?? 30),
  chars = Number(process.argv[3] ?? 200000);
const room = generateDataRoom(n, chars, 1);
console.log(
  'docs',
  room.documents.length,
  'chars',
  room.documents.reduce((a, d) => a + d.length, 0),
);
const t = Date.now();
const a = alignClauses(room.documents);
const members = a.groups.reduce((s, g) => s + g.members.length, 0);
console.log('groups', a.groups.length, 'open', a.groups.filter((g) => !g.same).length, 'members', members, 'ms', Date.now() - t);
const sizes = new Map<number, number>();
for (const g of a.groups) sizes.set(g.members.length, (sizes.get(g.members.length) ?? 0) + 1);
console.log(
  [...sizes]
    .sort((x, y) => x[0] - y[0])
    .map(([k, v]) => `${k}:${v}`)
    .join(' '),
);
const norm = (t: string) => t.replace(/\s+/g, ' ').trim().toLowerCase();
const open = a.groups.filter((g) => !g.same);
const distinct = open.map((g) => new Set(g.members.map((m) => norm(m.text))).size);
const gchars = open.map((g) => g.members.reduce((s, m) => s + m.text.length, 0));
const dchars = open.map((g) => [...new Set(g.members.map((m) => norm(m.text)))].reduce((s, t) => s + t.length, 0));
console.log(
  'open groups',
  open.length,
  'members',
  open.reduce((s, g) => s + g.members.length, 0),
  'distinct wordings',
  distinct.reduce((a, b) => a + b, 0),
  'max distinct',
  Math.max(...distinct),
);
console.log(
  'chars in prompts',
  gchars.reduce((a, b) => a + b, 0),
  'distinct chars',
  dchars.reduce((a, b) => a + b, 0),
  'max group chars',
  Math.max(...gchars),
  'max distinct chars',
  Math.max(...dchars),
);
console.log('values groups', open.filter((g) => g.values).length);
const ex = open.find((g) => g.members.length > 20)!;
console.log(
  ex.heading,
  ex.members.slice(0, 5).map((m) => m.text.slice(0, 120)),
);
