import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BUFFERED_EVENTS } from '../src/devserver/dev-server';

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
    for (const s of ['codec-server', 'postgresql', 'temporal', 'temporal-ui', 'worker', 'minio', 'minio-bucket'])
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
    expect(stdout).toMatch(/DYNAMIC_CONFIG_FILE_PATH: config\/dynamicconfig\/got.yaml/);
    const config = parse(readFileSync('deploy/temporal-dynamic-config.yaml', 'utf8')) as Record<string, { value: unknown }[]>;
    expect(config['history.maximumBufferedEventsBatch']).toEqual([{ value: BUFFERED_EVENTS }]);
    expect(config['system.enableActivityEagerExecution']).toEqual([{ value: true }]);
  });

  it('gives the workers and the codec server one payload store, MinIO', async () => {
    const { stdout } = await compose(['config'], KEYS);
    const services = (parse(stdout) as { services: Record<string, { environment?: Record<string, string> }> }).services;
    for (const name of ['worker', 'codec-server']) {
      expect(services[name]!.environment).toMatchObject({ GOT_STORE: 's3://got-payloads/runs', GOT_S3_ENDPOINT: 'http://minio:9000' });
    }
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
