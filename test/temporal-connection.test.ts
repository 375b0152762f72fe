import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { temporalOf } from '../src/cli/commands/doctor';
import { ValidationError } from '../src/goo/validate';
import { type SimulatedLlm, startSimulatedLlm } from '../src/simllm/server';
import { connectClient, connectNative, TemporalConnectError } from '../src/temporal/connect';
import {
  connectionOptionsOf,
  PLAINTEXT_PROFILE,
  plaintextTemporalEnv,
  summarizeConnection,
  temporalSettingsFromEnv,
} from '../src/temporal/connection';
import { startWorkerProcess } from './support/processes';
import { makeTestCertificates, startTlsProxy, type TestCertificates, type TlsProxy } from './support/tls-proxy';

const dir = mkdtempSync(join(tmpdir(), 'got-conn-'));
const certs: TestCertificates = makeTestCertificates(dir);
const ADDRESS = 'temporal.example:7233';

/** The refusal's message, checked to be a validation error naming `variable`. */
function refusal(env: Record<string, string>): string {
  try {
    temporalSettingsFromEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('connection settings from the standard Temporal variables', () => {
  it('with nothing set: no server named (the CLI uses its local one), namespace default, plaintext', () => {
    expect(temporalSettingsFromEnv({})).toEqual({ namespace: 'default', security: {} });
  });

  it('reads the address and namespace; an empty variable counts as unset', () => {
    const s = temporalSettingsFromEnv({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_NAMESPACE: 'prod', TEMPORAL_API_KEY: '' });
    expect(s).toEqual({ address: ADDRESS, namespace: 'prod', security: {} });
  });

  it('an API key implies TLS, unless TEMPORAL_TLS=false says otherwise', () => {
    expect(temporalSettingsFromEnv({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_API_KEY: 'k1' }).security).toEqual({ apiKey: 'k1', tls: true });
    expect(temporalSettingsFromEnv({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_API_KEY: 'k1', TEMPORAL_TLS: 'false' }).security).toEqual({
      apiKey: 'k1',
      tls: false,
    });
    const tlsOnly = summarizeConnection(temporalSettingsFromEnv({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_TLS: 'true' }));
    expect(tlsOnly).toMatchObject({ tls: true, serverCA: false, clientCertificate: false, apiKey: false });
  });

  it('reads the CA, the client pair and the server name from their files', () => {
    const { security } = temporalSettingsFromEnv({
      TEMPORAL_ADDRESS: ADDRESS,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
      TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey,
      TEMPORAL_TLS_SERVER_NAME: 'frontend.internal',
    });
    const tls = security.tls as Exclude<typeof security.tls, boolean | undefined>;
    expect(Buffer.from(tls.serverRootCACertificate!).equals(readFileSync(certs.caCert))).toBe(true);
    expect(Buffer.from(tls.clientCertPair!.crt).equals(readFileSync(certs.clientCert))).toBe(true);
    expect(Buffer.from(tls.clientCertPair!.key).equals(readFileSync(certs.clientKey))).toBe(true);
    expect(tls.serverNameOverride).toBe('frontend.internal');
  });

  it('takes a profile of a TOML file, the variables overriding it', () => {
    const file = join(dir, 'temporal.toml');
    writeFileSync(
      file,
      `[profile.cloud]\naddress = "cloud.example:7233"\nnamespace = "ns1"\napi_key = "from-file"\n[profile.cloud.tls]\nserver_ca_cert_path = "${certs.caCert}"\n`,
    );
    const s = temporalSettingsFromEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud', TEMPORAL_NAMESPACE: 'ns2' });
    expect(s).toMatchObject({ address: 'cloud.example:7233', namespace: 'ns2', profile: 'cloud', security: { apiKey: 'from-file' } });
    expect(typeof s.security.tls).toBe('object');
    writeFileSync(file, '[profile.default.tls]\nclient_cert_path = "/nowhere/client.pem"\nclient_key_path = "/nowhere/client.key"\n');
    expect(refusal({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_ADDRESS: ADDRESS })).toMatch(
      /tls\.client_cert_path of the Temporal config profile "default": \/nowhere\/client\.pem: no such file/,
    );
  });

  it.each([
    ['a flag that is not one', { TEMPORAL_TLS: 'yes' }, /TEMPORAL_TLS: true or false/],
    ['an address without a port', { TEMPORAL_ADDRESS: 'temporal.example' }, /TEMPORAL_ADDRESS: host:port/],
    [
      'a CA file that is not there',
      { TEMPORAL_TLS_SERVER_CA_CERT_PATH: '/nowhere/ca.pem' },
      /TEMPORAL_TLS_SERVER_CA_CERT_PATH: \/nowhere\/ca\.pem: no such file/,
    ],
    [
      'a client certificate without its key',
      { TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert },
      /TEMPORAL_TLS_CLIENT_CERT_PATH: set without TEMPORAL_TLS_CLIENT_KEY_PATH/,
    ],
    [
      'a client key without its certificate',
      { TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey },
      /TEMPORAL_TLS_CLIENT_KEY_PATH: set without TEMPORAL_TLS_CLIENT_CERT_PATH/,
    ],
    [
      'a CA given as a path and as data',
      { TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert, TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'x' },
      /TEMPORAL_TLS_SERVER_CA_CERT_PATH: set either it or TEMPORAL_TLS_SERVER_CA_CERT_DATA/,
    ],
    [
      'host verification turned off',
      { TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' },
      /TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: not supported/,
    ],
    [
      'a config file that is not there',
      { TEMPORAL_CONFIG_FILE: '/nowhere/temporal.toml' },
      /TEMPORAL_CONFIG_FILE: \/nowhere\/temporal\.toml: no such file/,
    ],
  ])('refuses %s, naming the variable', (_, env, expected) => {
    expect(refusal({ TEMPORAL_ADDRESS: ADDRESS, ...env })).toMatch(expected);
  });

  it('refuses an API key with no server named (the local dev server speaks plaintext)', () => {
    expect(refusal({ TEMPORAL_API_KEY: 'k1' })).toMatch(/TEMPORAL_ADDRESS: not set, but TEMPORAL_API_KEY is/);
  });

  it("a cluster worker's environment drops a shell's Temporal Cloud settings and reads a plaintext profile, not the user's", () => {
    const profile = join(dir, 'plaintext.toml');
    writeFileSync(profile, PLAINTEXT_PROFILE);
    const userProfile = join(dir, 'user.toml');
    writeFileSync(userProfile, '[profile.default]\naddress = "cloud.example:7233"\napi_key = "k-user"\n');
    const shell = {
      PATH: '/usr/bin',
      TEMPORAL_ADDRESS: '127.0.0.1:17233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_API_KEY: 'k-shell',
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert,
      TEMPORAL_GRPC_META_X_TEAM: 'a',
      TEMPORAL_CONFIG_FILE: userProfile,
    };
    expect(temporalSettingsFromEnv(shell).security.apiKey).toBe('k-shell');
    const env = plaintextTemporalEnv(shell, profile);
    expect(env).toEqual({
      PATH: '/usr/bin',
      TEMPORAL_ADDRESS: '127.0.0.1:17233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_CONFIG_FILE: profile,
    });
    expect(temporalSettingsFromEnv(env)).toEqual({ address: '127.0.0.1:17233', namespace: 'default', security: {} });
  });

  it('got doctor says how it connects, and whether a key is set, never the key', () => {
    const report = temporalOf({ TEMPORAL_ADDRESS: ADDRESS, TEMPORAL_NAMESPACE: 'prod', TEMPORAL_API_KEY: 'secret-key-1' });
    expect(report).toEqual({
      ok: true,
      address: ADDRESS,
      namespace: 'prod',
      tls: true,
      clientCertificate: false,
      serverCA: false,
      apiKey: true,
    });
    expect(JSON.stringify(report)).not.toContain('secret-key-1');
    expect(temporalOf({ TEMPORAL_TLS: 'maybe' })).toMatchObject({ ok: false, error: expect.stringMatching(/TEMPORAL_TLS/) });
  });
});

const run = promisify(execFile);
/** The test process's environment without the project's own settings or an LLM endpoint. */
const inherited = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith('GOT_') && !k.startsWith('TEMPORAL_') && !k.startsWith('OPENAI_')),
);

async function got(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { ...inherited, ...(process.env.GOT_STORE ? { GOT_STORE: process.env.GOT_STORE } : {}), ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('a TLS-secured frontend (a TLS-terminating proxy in front of the test server)', () => {
  let proxy: TlsProxy;
  let mtls: TlsProxy;
  beforeAll(async () => {
    proxy = await startTlsProxy({ target: inject('temporalAddress'), certs });
    mtls = await startTlsProxy({ target: inject('temporalAddress'), certs, requireClientCert: true });
  });
  afterAll(async () => {
    await proxy?.close();
    await mtls?.close();
  });
  const secured = () => ({ TEMPORAL_ADDRESS: `localhost:${proxy.address.split(':')[1]}`, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert });

  it('a client and a worker connection trust the server with its CA, and only with it', async () => {
    const settings = temporalSettingsFromEnv(secured());
    const options = connectionOptionsOf(settings, settings.address!);
    const client = await connectClient(options);
    expect((await client.workflowService.getSystemInfo({})).serverVersion).toBeTruthy();
    await client.close();
    await (await connectNative(options)).close();

    const untrusted = temporalSettingsFromEnv({ TEMPORAL_ADDRESS: secured().TEMPORAL_ADDRESS, TEMPORAL_TLS: 'true' });
    const failure = await connectNative(connectionOptionsOf(untrusted, untrusted.address!)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TemporalConnectError);
    expect((failure as Error).message).toMatch(/not signed by a CA this process trusts.*TEMPORAL_TLS_SERVER_CA_CERT_PATH/);
  });

  it('mTLS: through with the client certificate and key, refused without them', async () => {
    const address = `localhost:${mtls.address.split(':')[1]}`;
    const pair = { TEMPORAL_TLS_CLIENT_CERT_PATH: certs.clientCert, TEMPORAL_TLS_CLIENT_KEY_PATH: certs.clientKey };
    const withPair = temporalSettingsFromEnv({ TEMPORAL_ADDRESS: address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert, ...pair });
    await (await connectNative(connectionOptionsOf(withPair, address))).close();
    const client = await connectClient(connectionOptionsOf(withPair, address));
    await client.workflowService.getSystemInfo({});
    await client.close();

    const without = temporalSettingsFromEnv({ TEMPORAL_ADDRESS: address, TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.caCert });
    const failure = await connectNative(connectionOptionsOf(without, address)).catch((e: unknown) => e);
    expect((failure as Error).message).toMatch(
      /the server refused this client's certificate or wants one \(tlsv13 alert certificate required\): set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH/,
    );
  });

  it('got run, with its own worker, runs through TLS with the CA; without it, it stops with the reason', async () => {
    const before = proxy.sessions();
    const queue = `tls-run-${Date.now()}`;
    const args = [
      'run',
      '--task',
      'sorting',
      '--size',
      '32',
      '--scheme',
      'io',
      '--llm',
      'sim',
      '--task-queue',
      queue,
      '--no-progress',
      '--json',
    ];
    const ok = await got(args, secured());
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).status).toBe('answered');
    expect(proxy.sessions()).toBeGreaterThan(before);

    const refused = await got([...args, '--workflow-id', `${queue}-untrusted`], {
      ...secured(),
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: '',
      TEMPORAL_TLS: 'true',
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(
      /cannot connect to Temporal at localhost:\d+ \(TLS\): the server's certificate is not signed by a CA this process trusts/,
    );
  });

  describe('got-worker', () => {
    let llm: SimulatedLlm;
    beforeAll(async () => {
      llm = await startSimulatedLlm({});
    });
    afterAll(async () => llm?.close());

    it('polls through TLS, and a CLI run without a worker of its own is done by it', async () => {
      const queue = `tls-worker-${Date.now()}`;
      const worker = await startWorkerProcess({ ...secured(), GOT_TASK_QUEUE: queue, OPENAI_BASE_URL: llm.baseURL });
      try {
        expect(worker.output()).toMatch(new RegExp(`polling task queue "${queue}" on localhost:\\d+ \\(TLS\\)`));
        const result = await got(
          ['run', '--task', 'sorting', '--size', '32', '--scheme', 'io', '--task-queue', queue, '--no-worker', '--no-progress', '--json'],
          { ...secured(), OPENAI_BASE_URL: llm.baseURL, OPENAI_API_KEY: 'sim' },
        );
        expect(result.code, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout).llmCalls).toBeGreaterThan(0);
      } finally {
        await worker.stop();
      }
    });

    it('without the CA, exits with the reason instead of polling', async () => {
      const failure = await startWorkerProcess({
        TEMPORAL_ADDRESS: secured().TEMPORAL_ADDRESS,
        TEMPORAL_TLS: 'true',
        GOT_TASK_QUEUE: `tls-untrusted-${Date.now()}`,
        OPENAI_BASE_URL: llm.baseURL,
      }).catch((e: unknown) => e as Error);
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(/exited before polling[\s\S]*not signed by a CA this process trusts/);
    });
  });
});
