import { docMergeTask } from '../src/tasks/doc-merge';
import { generateDataRoom } from '../src/tasks/doc-merge/contracts';
import { measureLongMerges } from './long-merge';

const [count, chars, window, scheme] = [
  Number(process.argv[2]),
  Number(process.argv[3]),
  Number(process.argv[4]),
  process.argv[5] ?? 'got',
];
const rows = await measureLongMerges([
  {
    label: `${count} × ${chars} @ ${window} ${scheme}`,
    request: () => {
      const problem = generateDataRoom(count, chars, 1);
      return {
        task: 'doc-merge',
        problem,
        goo: docMergeTask.schemes[scheme]!({ size: count, problem, contextTokens: window }),
        llm: { contextTokens: window },
        labels: { scheme },
      };
    },
  },
]);
console.table(rows);
process.exit(0);
