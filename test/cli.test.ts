import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { describe, expect, inject, it } from 'vitest';
import { SEARCH_ATTRIBUTES } from '../src/run/search-attributes';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'got-cli-'));
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

// Nothing may be contacted: a server or LLM call would fail with exit code 3, not 2.
const OFFLINE = { TEMPORAL_ADDRESS: '127.0.0.1:1', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' };
const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_')));

async function got(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { ...inherited, ...OFFLINE, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

const goo = (operations: unknown[]) => file(`goo-${Math.random()}.json`, JSON.stringify({ version: 1, operations }));
const NDA = 'NON-DISCLOSURE AGREEMENT. The Recipient keeps the Confidential Information secret for two years.';

describe('the got command refuses bad input before anything starts (exit code 2, naming the problem)', () => {
  const cases: [string, string[], RegExp][] = [
    [
      'a GoO with a cycle',
      [
        'run',
        '--goo',
        goo([
          { id: 'a', type: 'generate', prompt: 'sort', inputs: ['b'] },
          { id: 'b', type: 'score', inputs: ['a'] },
        ]),
      ],
      /cycle: (a -> b -> a|b -> a -> b)/,
    ],
    ['an unknown operation', ['run', '--goo', goo([{ id: 'a', type: 'teleport', inputs: [] }])], /goo\.operations\[0\]\.type/],
    [
      'an operation with missing inputs',
      [
        'run',
        '--goo',
        goo([
          { id: 'g', type: 'generate', prompt: 'sort' },
          { id: 'k', type: 'keepBestN', n: 1, higherIsBetter: false },
        ]),
      ],
      /goo\.operations\[1\]\.inputs: a keepBestN operation needs at least one input/,
    ],
    [
      'an input that does not exist',
      ['run', '--goo', goo([{ id: 'g', type: 'generate', prompt: 'sort', inputs: ['ghost'] }])],
      /unknown input operation "ghost"/,
    ],
    [
      'absurd branching',
      ['run', '--goo', goo([{ id: 'g', type: 'generate', prompt: 'sort', k: 100000 }])],
      /goo\.operations\[0\]\.k: k = 100000 exceeds the configured bound/,
    ],
    ['an unknown task', ['run', '--task', 'poetry'], /--task.*poetry.*Allowed choices/],
    ['an unknown scheme', ['run', '--task', 'sorting', '--scheme', 'magic'], /--scheme: task "sorting" has no scheme "magic"/],
    [
      'a malformed dataset row',
      ['run', '--dataset', file('bad.csv', 'ID,Unsorted,Sorted\n0,"[1, 2]","[1, 2]"\n1,"[3, x]","[3]"\n'), '--sample', '0'],
      /row 2 column Unsorted: expected a list of integers/,
    ],
    [
      'an empty document',
      ['run', '--task', 'doc-merge', '--doc', file('a.txt', NDA), '--doc', file('empty.txt', '   \n')],
      /--doc: .*empty\.txt: the text file is empty/,
    ],
    [
      'a binary document',
      [
        'run',
        '--task',
        'doc-merge',
        '--doc',
        file('a2.txt', NDA),
        '--doc',
        file('bin.pdf', Buffer.from([0x25, 0x50, 0x44, 0x46, 0, 1, 2, 3, 0])),
      ],
      /--doc: .*bin\.pdf: not a supported document: supported are PDF \(with a text layer\), DOCX, HTML, Markdown and plain text/,
    ],
    [
      'a document over the size limit',
      ['run', '--task', 'doc-merge', '--doc', file('a3.txt', NDA), '--doc', file('big.txt', 'x'.repeat(1_000_001))],
      /--doc: .*big\.txt: the document has 1,000,001 characters of text; at most 1,000,000/,
    ],
    ['a budget that is not positive', ['run', '--budget-usd', '-1'], /budget\.maxCostUsd: a cost budget must be a positive number/],
    ['a negative stuck threshold', ['run', '--stuck-after', '-1'], /--stuck-after must be a whole number, 0 or more/],
    ['a sample that is not a seed', ['run', '--sample', 'abc'], /--sample: .*whole number/],
    ['an unreadable problem file', ['run', '--problem', join(dir, 'missing.json')], /--problem: cannot read/],
  ];

  it.each(cases)('%s', async (_name, args, message) => {
    const { code, stderr } = await got(args);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
  });
});

describe('option precedence: flags > environment > config file > defaults', () => {
  const config = file('got.config.json', JSON.stringify({ model: 'from-file', temperature: 0.3, latency: 5 }));
  const modelOf = async (args: string[], env: Record<string, string> = {}) => {
    const { code, stdout, stderr } = await got(['run', '--scheme', 'io', '--size', '32', '--dry-run', ...args], env);
    expect(code, stderr).toBe(0);
    return JSON.parse(stdout) as { llm: { model: string; temperature: number } };
  };

  it('takes the config file over the defaults', async () => {
    const request = await modelOf(['--config', config]);
    expect(request.llm).toMatchObject({ model: 'from-file', temperature: 0.3 });
  });

  it('takes the environment over the config file', async () => {
    expect((await modelOf(['--config', config], { GOT_MODEL: 'from-env' })).llm.model).toBe('from-env');
  });

  it("sets the run's calls in flight, a call's timeout and the calls a history holds from flags", async () => {
    const request = (await modelOf(['--max-concurrent-calls', '40', '--call-timeout', '90', '--calls-per-history', '500'])) as unknown as {
      llm: { maxConcurrentCalls: number; timeoutSeconds: number };
      children: { maxCalls: number };
    };
    expect(request.llm).toMatchObject({ maxConcurrentCalls: 40, timeoutSeconds: 90 });
    expect(request.children).toEqual({ maxCalls: 500 });
  });

  it('takes a flag over both', async () => {
    expect((await modelOf(['--config', config, '--model', 'from-flag'], { GOT_MODEL: 'from-env' })).llm.model).toBe('from-flag');
  });

  it('refuses a config file with an unknown key, naming it', async () => {
    const { code, stderr } = await got(['run', '--dry-run', '--config', file('bad-config.json', JSON.stringify({ modle: 'x' }))]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/modle/);
  });
});

describe('help', () => {
  it.each(['run', 'demo', 'eval', 'inspect', 'status', 'setup', 'server', 'sim-llm'])(
    '%s --help describes the command and exits 0',
    async (command) => {
      const { code, stdout } = await got([command, '--help']);
      expect(code).toBe(0);
      expect(stdout).toMatch(/Usage: got /);
    },
  );
});

describe('a run through the CLI', () => {
  it('costs zero tokens the second time with --cache, and says so in its JSON report', async () => {
    const env = { TEMPORAL_ADDRESS: inject('temporalAddress'), OPENAI_BASE_URL: '', GOT_CACHE_DIR: join(dir, 'cache') };
    const args = ['run', '--scheme', 'got', '--size', '32', '--sample', '5', '--cache', '--json', '--no-progress'];
    const first = await got(args, env);
    expect(first.code, first.stderr).toBe(0);
    const second = await got(args, env);
    expect(second.code, second.stderr).toBe(0);
    const [a, b] = [JSON.parse(first.stdout), JSON.parse(second.stdout)] as {
      promptTokens: number;
      completionTokens: number;
      costUsd: number;
      llmCalls: number;
      best: { answer: string };
    }[];
    expect(a!.promptTokens).toBeGreaterThan(0);
    expect(b).toMatchObject({ promptTokens: 0, completionTokens: 0, costUsd: 0, llmCalls: a!.llmCalls });
    expect(b!.best.answer).toBe(a!.best.answer);
    // Two whole CLI runs, each starting its own worker and bundling the workflows: under the full
    // suite's load on two cores, one took over a minute (a CI run timed out at 120 s).
  }, 300_000);

  it("registers the search attributes a configured server's namespace lacks, and its run records them", async () => {
    // Checked while the worker starts (decision 78), and awaited before the run is started.
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    try {
      const namespace = `got-cli-${randomUUID().slice(0, 8)}`;
      await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
      for (let attempt = 0; ; attempt++) {
        const ready = await connection.workflowService.listWorkflowExecutions({ namespace }).then(
          () => true,
          (error: unknown) => (attempt > 100 ? Promise.reject(error) : false),
        );
        if (ready) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const before = await connection.operatorService.listSearchAttributes({ namespace });
      expect(Object.keys(before.customAttributes)).not.toContain(Object.keys(SEARCH_ATTRIBUTES)[0]);
      const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, OPENAI_BASE_URL: '' };
      const { code, stdout, stderr } = await got(['run', '--scheme', 'io', '--size', '8', '--json', '--no-progress'], env);
      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ status: 'answered' });
      const after = await connection.operatorService.listSearchAttributes({ namespace });
      expect(Object.keys(after.customAttributes)).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
    } finally {
      await connection.close();
    }
  });
});
