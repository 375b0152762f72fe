import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ClusterInfo } from '../../cluster/cluster';
import { DEFAULT_PORT_BASE, MAX_WORKERS } from '../../cluster/ports';
import { CLUSTER_DIR_ENV, defaultClusterDir } from '../../cluster/state';

const wholeNumber =
  (name: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
    return n;
  };

const stateDirOption = () =>
  new Option('--state-dir <dir>', "the cluster's folder: settings, pids, logs, data").env(CLUSTER_DIR_ENV).default(defaultClusterDir());

/** `export NAME=value` lines a shell can `eval`. */
export const exportLines = (env: Record<string, string>) =>
  Object.entries(env)
    .map(([k, v]) => `export ${k}=${/^[\w.:/@+,=-]*$/.test(v) ? v : `'${v.replaceAll("'", `'\\''`)}'`}`)
    .join('\n');

function describe(info: ClusterInfo, seconds: string, log: (line: string) => void): void {
  const workers = info.workers.map((w) => `pid ${w.pid}, metrics ${w.metrics}`).join('; ');
  log(
    [
      `Cluster ready in ${seconds} s (state in ${info.stateDir}):`,
      `  Temporal frontend  ${info.frontend}  (PostgreSQL on 127.0.0.1:${info.ports.postgres})`,
      `  Web UI             ${info.webUi}`,
      `  Codec server       ${info.codec}`,
      `  MinIO (S3 store)   ${info.minio}  (${info.env.GOT_STORE})`,
      `  LLM                ${info.llm}`,
      `  Workers            ${info.workers.length} on task queue "${info.env.GOT_TASK_QUEUE}" (${workers})`,
      `  Logs               ${info.logs}`,
      'A client of the cluster (e.g. `got run --no-worker ...`) needs this environment (printed on stdout; `got cluster env` prints it again):',
    ].join('\n'),
  );
}

/** Adds `got cluster up|down|status|env`: docker-compose.yml's deployment run on this machine without Docker. */
export function addClusterCommand(program: Command, log: (line: string) => void): void {
  const cluster = program
    .command('cluster')
    .description(
      "docker-compose.yml's deployment on this machine without Docker: Temporal on PostgreSQL, the Web UI, the codec server, MinIO and workers",
    );

  cluster
    .command('up')
    .description('start the cluster, or whatever part of it is not running, and wait until every part is ready')
    .addOption(stateDirOption())
    .option(
      '--port-base <port>',
      `the Temporal frontend's port; the cluster's other ports follow it (default ${DEFAULT_PORT_BASE})`,
      wholeNumber('--port-base', 1024, 65_485),
    )
    .option('--workers <n>', 'GoT worker processes (default 2)', wholeNumber('--workers', 1, MAX_WORKERS))
    .option('--simulated', "serve the workers' LLM calls with the simulated LLM (else OPENAI_BASE_URL)")
    .option('--latency <ms>', 'latency per call of the simulated LLM', wholeNumber('--latency', 0))
    .option('--json', "print the cluster's addresses and client environment as JSON", false)
    .action(async (o: { stateDir: string; portBase?: number; workers?: number; simulated?: boolean; latency?: number; json: boolean }) => {
      const { clusterUp } = await import('../../cluster/cluster');
      const startedAt = Date.now();
      const info = await clusterUp({
        stateDir: o.stateDir,
        log,
        ...(o.portBase !== undefined ? { portBase: o.portBase } : {}),
        ...(o.workers !== undefined ? { workers: o.workers } : {}),
        ...(o.simulated ? { simulated: true } : {}),
        ...(o.latency !== undefined ? { latencyMs: o.latency } : {}),
      });
      if (o.json) console.log(JSON.stringify({ ...info, seconds: (Date.now() - startedAt) / 1000 }, null, 2));
      else {
        describe(info, ((Date.now() - startedAt) / 1000).toFixed(1), log);
        console.log(exportLines(info.env));
      }
    });

  cluster
    .command('down')
    .description('stop every process the cluster started (and nothing else)')
    .addOption(stateDirOption())
    .option('--purge', 'also delete its data: the database, the stored payloads, the keys and the logs', false)
    .action(async (o: { stateDir: string; purge: boolean }) => {
      const { clusterDown } = await import('../../cluster/cluster');
      const stopped = await clusterDown({ stateDir: o.stateDir, purge: o.purge, log });
      log(
        `${stopped.length ? `Stopped ${stopped.join(', ')}.` : 'Nothing of the cluster was running.'}${o.purge ? ` Deleted its data (${o.stateDir}).` : ''}`,
      );
    });

  cluster
    .command('status')
    .description('which parts of the cluster run, and where (exit code 3 when some part is not running)')
    .addOption(stateDirOption())
    .option('--json', 'print the status as JSON', false)
    .action(async (o: { stateDir: string; json: boolean }) => {
      const { clusterStatus } = await import('../../cluster/cluster');
      const status = await clusterStatus(o.stateDir);
      const allRunning = status.exists && status.parts.length > 0 && status.parts.every((p) => p.running);
      if (o.json) console.log(JSON.stringify(status, null, 2));
      else if (!status.exists) log(`No cluster in ${o.stateDir} (\`got cluster up\` starts one).`);
      else if (!status.parts.length) log(`Nothing of the cluster in ${o.stateDir} runs (\`got cluster up\` starts it).`);
      else {
        for (const p of status.parts) log(`  ${p.name.padEnd(10)} ${p.running ? `running (pid ${p.pid})` : 'stopped'}`);
        if (status.info) log(`Frontend ${status.info.frontend} · Web UI ${status.info.webUi} · codec ${status.info.codec}`);
      }
      if (!allRunning) process.exitCode = 3;
    });

  cluster
    .command('env')
    .description('print the environment a client of the cluster needs, as export lines (eval "$(got cluster env)")')
    .addOption(stateDirOption())
    .action(async (o: { stateDir: string }) => {
      const { clusterStatus } = await import('../../cluster/cluster');
      const status = await clusterStatus(o.stateDir);
      if (!status.info) throw new Error(`no cluster in ${o.stateDir}: run \`got cluster up\` first`);
      console.log(exportLines(status.info.env));
    });
}
