import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLUSTER_STORE } from '../src/cluster/cluster';
import {
  COMPOSE_DEPLOY_MOUNT,
  CONFIG_ENV_NAME,
  DEPLOY_FILES,
  parseEnvFile,
  sharedSettings,
  temporalServerArgs,
  uiServerArgs,
} from '../src/cluster/deploy-files';
import { clusterPorts } from '../src/cluster/ports';
import { temporalServerEnv } from '../src/cluster/temporal-server';
import { TEMPORAL_SERVER_VERSION, UI_SERVER_VERSION } from '../src/cluster/tools';
import { uiServerEnv } from '../src/cluster/ui-server';
import { BUFFERED_EVENTS, IN_FLIGHT_UPDATES } from '../src/devserver/dev-server';

const exec = promisify(execFile);

/** `docker compose` (v2) where present, else Debian's `docker-compose`: both validate the file without an engine. */
async function compose(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const v2 = await exec('docker', ['compose', 'version']).then(
    () => true,
    () => false,
  );
  const [cmd, pre] = v2 ? ['docker', ['compose']] : ['docker-compose', []];
  try {
    const { stdout, stderr } = await exec(cmd, [...pre, '-f', 'docker-compose.yml', ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(e) };
  }
}

const KEYS = { GOT_CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}` };

describe('docker-compose.yml', () => {
  it('is a valid compose file with the whole deployment', async () => {
    const { code, stdout, stderr } = await compose(['config', '--services'], KEYS);
    expect(code, stderr).toBe(0);
    const services = stdout.trim().split('\n').sort();
    for (const s of [
      'codec-server',
      'postgresql',
      'temporal-setup',
      'temporal',
      'temporal-namespace',
      'temporal-ui',
      'worker',
      'minio',
      'minio-bucket',
    ])
      expect(services).toContain(s);
  });

  it('encrypts payloads by default: it refuses to start without codec keys', async () => {
    const { code, stderr } = await compose(['config'], { GOT_CODEC_KEYS: '' });
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/GOT_CODEC_KEYS/);
  });

  it('points the worker at Temporal, the codec keys and an LLM endpoint, and the UI at the codec server', async () => {
    const { stdout } = await compose(['config'], KEYS);
    expect(stdout).toMatch(/TEMPORAL_ADDRESS: temporal:7233/);
    expect(stdout).toMatch(/OPENAI_BASE_URL: http:\/\/sim-llm:8000\/v1/);
    expect(stdout).toMatch(/TEMPORAL_CODEC_ENDPOINT: http:\/\/localhost:8888/);
  });

  it('gives Temporal the dynamic config the engine relies on, the values the dev server gets', async () => {
    const { stdout } = await compose(['config'], KEYS);
    expect(stdout).toMatch(/TEMPORAL_DYNAMIC_CONFIG_FILE: \/etc\/got\/temporal-dynamic-config.yaml/);
    const config = parse(readFileSync('deploy/temporal-dynamic-config.yaml', 'utf8')) as Record<string, { value: unknown }[]>;
    expect(config['history.maximumBufferedEventsBatch']).toEqual([{ value: BUFFERED_EVENTS }]);
    expect(config['system.enableActivityEagerExecution']).toEqual([{ value: true }]);
    expect(config['history.maxInFlightUpdates']).toEqual([{ value: IN_FLIGHT_UPDATES }]);
  });

  it('gives the workers and the codec server one payload store, MinIO', async () => {
    const { stdout } = await compose(['config'], KEYS);
    const services = (parse(stdout) as { services: Record<string, { environment?: Record<string, string> }> }).services;
    for (const name of ['worker', 'codec-server']) {
      expect(services[name]!.environment).toMatchObject({ GOT_STORE: 's3://got-payloads/runs', GOT_S3_ENDPOINT: 'http://minio:9000' });
    }
  });
});

type RawService = { image?: string; entrypoint?: string[]; volumes?: string[]; env_file?: string };
/** The file as written (the rendered config spells mounts differently in each compose version). */
const raw = (parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, RawService> }).services;
const rendered = async () =>
  (parse((await compose(['config'], KEYS)).stdout) as { services: Record<string, { environment?: Record<string, string | number> }> })
    .services;
/** Where a path under deploy/ appears inside compose's containers. */
const mounted = (path: string) => `${COMPOSE_DEPLOY_MOUNT}/${path.replace(/^deploy\//, '')}`;
/** The variables a configuration template reads (`env "NAME"`). */
const templateVars = (dir: string) =>
  new Set([...readFileSync(join(dir, `${CONFIG_ENV_NAME}.yaml`), 'utf8').matchAll(/env "(\w+)"/g)].map((m) => m[1]!));

describe('docker-compose.yml and `got cluster up` run the same files with the same values', () => {
  it('mounts deploy/ into the Temporal containers, where the cluster reads it from the repository', () => {
    for (const name of ['temporal-setup', 'temporal', 'temporal-namespace'])
      expect(raw[name]!.volumes).toContain(`./deploy:${COMPOSE_DEPLOY_MOUNT}:ro`);
    for (const file of Object.values(DEPLOY_FILES)) expect(existsSync(file), file).toBe(true);
  });

  it('starts the Temporal server of the same version on the same configuration, as the cluster does', () => {
    expect(raw.temporal!.image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    expect(raw.temporal!.entrypoint).toEqual(['temporal-server', ...temporalServerArgs(mounted(DEPLOY_FILES.temporalConfigDir))]);
    expect(existsSync(join(DEPLOY_FILES.temporalConfigDir, `${CONFIG_ENV_NAME}.yaml`))).toBe(true);
  });

  it('sets up the schemas with the same script and the same server version', () => {
    expect(raw['temporal-setup']!.image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
    expect(raw['temporal-setup']!.entrypoint).toEqual(['sh', mounted(DEPLOY_FILES.schemaSetup)]);
    expect(raw['temporal-namespace']!.image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
  });

  it("gives the Web UI of the same version the cluster's UI configuration", () => {
    expect(raw['temporal-ui']!.image).toBe(`temporalio/ui:${UI_SERVER_VERSION}`);
    expect(raw['temporal-ui']!.volumes).toContain(
      `./${DEPLOY_FILES.uiConfigDir}/${CONFIG_ENV_NAME}.yaml:/home/ui-server/config/docker.yaml:ro`,
    );
    expect(uiServerArgs('/x')).toEqual(['--root', '/', '--config', '/x', '--env', CONFIG_ENV_NAME, 'start']);
  });

  it('hands the database and Temporal the settings of deploy/temporal.env, which the cluster reads too', async () => {
    const shared = sharedSettings();
    expect(shared).toEqual(parseEnvFile(readFileSync(DEPLOY_FILES.sharedEnv, 'utf8')));
    const services = await rendered();
    for (const name of ['postgresql', 'temporal-setup', 'temporal', 'temporal-namespace']) {
      expect(raw[name]!.env_file).toBe(DEPLOY_FILES.sharedEnv);
      expect(services[name]!.environment).toMatchObject(shared);
    }
    const env = temporalServerEnv(clusterPorts(17233), shared);
    for (const key of Object.keys(shared).filter((k) => k in env)) expect(env[key], key).toBe(shared[key as keyof typeof shared]);
    // The UI and the workers get only the namespace, not the database's password.
    for (const name of ['worker', 'temporal-ui']) {
      expect(services[name]!.environment!.TEMPORAL_NAMESPACE).toBe(shared.TEMPORAL_NAMESPACE);
      expect(services[name]!.environment!.POSTGRES_PASSWORD).toBeUndefined();
    }
    expect(services.temporal!.environment!.TEMPORAL_DYNAMIC_CONFIG_FILE).toBe(mounted(DEPLOY_FILES.dynamicConfig));
    expect(env.TEMPORAL_DYNAMIC_CONFIG_FILE!.endsWith(DEPLOY_FILES.dynamicConfig)).toBe(true);
  });

  it('the cluster fills in every variable the two configuration templates read', () => {
    const ports = clusterPorts(17233);
    const shared = sharedSettings();
    expect([...templateVars(DEPLOY_FILES.temporalConfigDir)].filter((v) => !(v in temporalServerEnv(ports, shared)))).toEqual([]);
    expect([...templateVars(DEPLOY_FILES.uiConfigDir)].filter((v) => !(v in uiServerEnv(ports, shared)))).toEqual([]);
  });

  it("the cluster's clients and workers use compose's payload store", async () => {
    expect((await rendered()).worker!.environment!.GOT_STORE).toBe(CLUSTER_STORE);
  });
});

describe('the Dockerfile', () => {
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const steps = dockerfile.split('\n').filter((l) => /^[A-Z]+ /.test(l));

  it('installs from the lockfile the way CI does', () => {
    expect(steps).toContain('COPY package.json package-lock.json ./');
    expect(steps.some((s) => /^RUN npm install\b/.test(s))).toBe(true);
    expect(readFileSync('.ci/run', 'utf8')).toMatch(/^npm install$/m);
  });

  it('builds dist/ from every folder the worker imports from, and its entry point exists', () => {
    for (const dir of ['src', 'workflows', 'activities', 'worker', 'schema']) expect(steps).toContain(`COPY ${dir} ./${dir}`);
    expect(steps).toContain('RUN npm run build');
    expect(steps).toContain('COPY --from=build /app/dist ./dist');
    const cmd = steps.find((s) => s.startsWith('CMD '))!;
    const entry = (JSON.parse(cmd.slice(4)) as string[]).find((a) => a.endsWith('.js'))!;
    expect(existsSync(entry)).toBe(true);
  });
});
