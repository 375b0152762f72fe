/**
 * The pieces of `got cluster` that need no running cluster: its port layout, the shared settings,
 * and the shared Temporal server configuration as the real server binary renders it, once with the
 * cluster's environment and once with compose's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEPLOY_FILES, parseEnvFile, REPO_ROOT, retentionSeconds, sharedSettings, temporalServerArgs } from '../src/cluster/deploy-files';
import { clusterPorts, DEFAULT_PORT_BASE, MAX_PORT_BASE, MAX_WORKERS, PORT_SPAN, portsInUse } from '../src/cluster/ports';
import { temporalServerEnv } from '../src/cluster/temporal-server';
import { ensureClusterTool } from '../src/cluster/tools';

const exec = promisify(execFile);
let server: string;

beforeAll(async () => {
  // Built by `npm test`'s pretest hook; cached per user.
  server = await ensureClusterTool('server');
});

type Rendered = {
  persistence: {
    numHistoryShards: number;
    datastores: Record<string, { sql: { connectAddr: string; databaseName: string; user: string } }>;
  };
  services: Record<string, { rpc: { grpcPort: number; membershipPort: number; bindOnIP: string; httpPort: number } }>;
  dynamicConfigClient: { filepath: string };
};

/** The server's own rendering of deploy/temporal/got.yaml with `env` (and nothing else) in its environment. */
async function render(env: Record<string, string>): Promise<Rendered> {
  const args = temporalServerArgs(join(REPO_ROOT, DEPLOY_FILES.temporalConfigDir));
  // The same flags as `start`, asking for the rendered configuration instead.
  const { stdout } = await exec(server, [...args.slice(0, -1), 'render-config'], { env: { PATH: process.env.PATH ?? '', ...env } });
  return parse(stdout) as Rendered;
}

describe("the cluster's ports", () => {
  it('are distinct, start at the base and stay within the span', () => {
    const base = 23_000;
    const ports = portsInUse(clusterPorts(base), MAX_WORKERS).map((p) => p.port);
    expect(new Set(ports).size).toBe(ports.length);
    expect(Math.min(...ports)).toBe(base);
    expect(Math.max(...ports)).toBeLessThan(base + PORT_SPAN);
    expect(clusterPorts(base).frontend).toBe(base);
  });

  it("keep clear of Temporal's usual ports by default, and refuse a base that does not fit", () => {
    const defaults = portsInUse(clusterPorts(DEFAULT_PORT_BASE), 2).map((p) => p.port);
    for (const usual of [5432, 7233, 7234, 7235, 7239, 7243, 6933, 8080, 8233, 8888, 9000]) expect(defaults).not.toContain(usual);
    expect(() => clusterPorts(80)).toThrow(/port base/);
    expect(() => clusterPorts(65_500)).toThrow(/port base/);
    // Temporal's membership table holds ports in a smallint: a base whose membership ports pass 32767 cannot start.
    expect(() => clusterPorts(MAX_PORT_BASE)).not.toThrow();
    expect(clusterPorts(MAX_PORT_BASE).temporalWorkerMembership).toBe(32_767);
    expect(() => clusterPorts(MAX_PORT_BASE + 1)).toThrow(/from 1024 to 32759: Temporal keeps its membership ports/);
    expect(() => clusterPorts(DEFAULT_PORT_BASE).workerMetrics(MAX_WORKERS)).toThrow(RangeError);
  });
});

describe('got cluster up with an option it cannot use', () => {
  const up = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
    exec(process.execPath, [join(REPO_ROOT, 'bin/got.js'), 'cluster', 'up', ...args], { env }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );

  it('exits 2 naming the option and its limit, having started nothing', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'got-cluster-bad-'));
    const tooHigh = await up(['--simulated', '--port-base', String(MAX_PORT_BASE + 1), '--state-dir', stateDir]);
    expect(tooHigh.code).toBe(2);
    expect(tooHigh.stderr).toMatch(/--port-base: the port base must be a whole number from 1024 to 32759/);
    const workers = await up(['--simulated', '--workers', String(MAX_WORKERS + 1), '--state-dir', stateDir]);
    expect(workers.code).toBe(2);
    expect(workers.stderr).toMatch(/--workers/);
    const { OPENAI_BASE_URL: _, ...noLlm } = process.env;
    const llm = await up(['--state-dir', stateDir], noLlm);
    expect(llm.code).toBe(2);
    expect(llm.stderr).toMatch(/OPENAI_BASE_URL: not set/);
    expect(readdirSync(stateDir)).toEqual([]);
  });
});

describe('the shared settings', () => {
  it('read deploy/temporal.env as compose does', () => {
    expect(parseEnvFile('# a comment\n\nA=1\nB = two words\n')).toEqual({ A: '1', B: 'two words' });
    expect(() => parseEnvFile('no equals sign')).toThrow(/KEY=value/);
    expect(sharedSettings().TEMPORAL_DB_NAME).toBeTruthy();
  });

  it('say the namespace retention in hours or days', () => {
    expect(retentionSeconds('72h')).toBe(72 * 3600);
    expect(retentionSeconds('30d')).toBe(30 * 86_400);
    expect(() => retentionSeconds('3 weeks')).toThrow(/TEMPORAL_NAMESPACE_RETENTION/);
  });
});

describe('deploy/temporal/got.yaml as the Temporal server renders it', () => {
  it("with the cluster's environment: its own PostgreSQL, its ports, the loopback address, the shared databases", async () => {
    const ports = clusterPorts(23_000);
    const shared = sharedSettings();
    const config = await render(temporalServerEnv(ports, shared));
    const { datastores } = config.persistence;
    expect(Object.values(datastores).map((d) => d.sql.connectAddr)).toEqual([`127.0.0.1:${ports.postgres}`, `127.0.0.1:${ports.postgres}`]);
    expect(Object.values(datastores).map((d) => d.sql.databaseName)).toEqual([shared.TEMPORAL_DB_NAME, shared.TEMPORAL_VISIBILITY_DB_NAME]);
    expect(config.persistence.numHistoryShards).toBe(Number(shared.TEMPORAL_HISTORY_SHARDS));
    expect(config.services.frontend!.rpc).toMatchObject({ grpcPort: ports.frontend, httpPort: ports.frontendHttp, bindOnIP: '127.0.0.1' });
    expect(config.services.history!.rpc.grpcPort).toBe(ports.history);
    expect(config.services.matching!.rpc.grpcPort).toBe(ports.matching);
    expect(config.services.worker!.rpc.membershipPort).toBe(ports.temporalWorkerMembership);
    expect(config.dynamicConfigClient.filepath).toBe(join(REPO_ROOT, DEPLOY_FILES.dynamicConfig));
  });

  it("with compose's environment: the postgresql service, Temporal's usual ports, the container's own address", async () => {
    const shared = sharedSettings();
    const config = await render({ ...shared, POSTGRES_HOST: 'postgresql', POSTGRES_PORT: '5432' });
    expect(config.persistence.datastores['postgres-default']!.sql.connectAddr).toBe('postgresql:5432');
    expect(config.services.frontend!.rpc).toMatchObject({ grpcPort: 7233, bindOnIP: '' });
    expect(config.dynamicConfigClient.filepath).toBe('/etc/got/temporal-dynamic-config.yaml');
  });
});
