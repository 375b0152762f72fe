import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync } from 'node:fs';
import { chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LOOPBACK } from '../devserver/process';
import { type ProcessRecord, spawnDetached, stopProcess, waitUntilReady } from './processes';

// The cluster's own PostgreSQL: Debian's server binaries run on a data folder of ours, on a port of
// ours, reachable over TCP on the loopback address only (no Unix socket, so it never meets the
// system's cluster). PostgreSQL refuses to run as root; as root, it runs as the `postgres` user the
// package creates, on a data folder that user owns under its home (decision 45).

const exec = promisify(execFile);

/** Names a folder holding `initdb`, `postgres` and `pg_isready` instead of Debian's. */
export const POSTGRES_BIN_ENV = 'GOT_POSTGRES_BIN';
const DEBIAN_ROOT = '/usr/lib/postgresql';
const PROGRAMS = ['initdb', 'postgres', 'pg_isready'];

/** The system account PostgreSQL runs as when we are root. */
export interface PostgresAccount {
  uid: number;
  gid: number;
  home: string;
}

/** The folder with PostgreSQL's server programs: $GOT_POSTGRES_BIN, else the newest of Debian's packages; undefined when there is none. */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env[POSTGRES_BIN_ENV];
  if (fromEnv) return fromEnv;
  const versions = existsSync(DEBIAN_ROOT) ? readdirSync(DEBIAN_ROOT).filter((v) => /^\d+$/.test(v)) : [];
  return versions
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(DEBIAN_ROOT, v, 'bin'))
    .find((dir) => PROGRAMS.every((p) => existsSync(join(dir, p))));
}

const isRoot = () => process.getuid?.() === 0;

/**
 * The server programs' folder, installing Debian's `postgresql` package first when it is missing and
 * we can (root with apt-get); otherwise an error saying what to install.
 */
export async function ensurePostgres(log: (line: string) => void): Promise<string> {
  const found = findPostgresBin();
  if (found) {
    const missing = PROGRAMS.filter((p) => !existsSync(join(found, p)));
    if (missing.length) throw new Error(`${found} lacks ${missing.join(', ')}: point ${POSTGRES_BIN_ENV} at PostgreSQL's server programs`);
    return found;
  }
  if (isRoot() && existsSync('/usr/bin/apt-get')) {
    log("Installing Debian's postgresql package (about a minute, once per machine)...");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    await exec('apt-get', ['update', '-qq'], { env });
    await exec('apt-get', ['install', '-y', '-qq', 'postgresql'], { env });
    const installed = findPostgresBin();
    if (installed) return installed;
  }
  throw new Error(
    `PostgreSQL's server programs (initdb, postgres) were not found under ${DEBIAN_ROOT}. Install them ` +
      `(Debian/Ubuntu: sudo apt-get install postgresql) or set ${POSTGRES_BIN_ENV} to the folder holding them.`,
  );
}

/** The `postgres` account, when we are root (PostgreSQL must not run as root); undefined otherwise. */
export async function postgresAccount(): Promise<PostgresAccount | undefined> {
  if (!isRoot()) return undefined;
  const line = (await readFile('/etc/passwd', 'utf8')).split('\n').find((l) => l.startsWith('postgres:'));
  const [, , uid, gid, , home] = line?.split(':') ?? [];
  if (!uid || !gid || !home)
    throw new Error(
      'running as root, and there is no `postgres` user to run PostgreSQL as: install the postgresql package, or run as another user',
    );
  return { uid: Number(uid), gid: Number(gid), home };
}

/**
 * Where a cluster's database lives: in its state folder, or, as root, in a folder of the postgres
 * user's home named after the state folder (that user cannot enter root's home).
 */
export function postgresDataDir(stateDir: string, account: PostgresAccount | undefined): string {
  if (!account) return join(stateDir, 'postgres');
  const id = createHash('sha256').update(stateDir).digest('hex').slice(0, 12);
  return join(account.home, 'got-temporal', `cluster-${id}`);
}

/** What {@link initPostgres} and {@link startPostgres} need. */
export interface PostgresOptions {
  binDir: string;
  dataDir: string;
  port: number;
  user: string;
  password: string;
  account: PostgresAccount | undefined;
  logFile: string;
}

/** Creates the database cluster (superuser `user` with `password`, password logins only) unless the data folder has one. */
export async function initPostgres(o: PostgresOptions): Promise<boolean> {
  if (existsSync(join(o.dataDir, 'PG_VERSION'))) return false;
  const parent = join(o.dataDir, '..');
  await mkdir(parent, { recursive: true });
  if (o.account) await chown(parent, o.account.uid, o.account.gid);
  // initdb reads the password from a file, which the account it runs as must be able to read.
  const pwfile = join(parent, `.pwfile-${process.pid}`);
  await writeFile(pwfile, `${o.password}\n`, { mode: 0o600 });
  if (o.account) await chown(pwfile, o.account.uid, o.account.gid);
  try {
    const args = ['-D', o.dataDir, '-U', o.user, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'];
    const code = await runAs(join(o.binDir, 'initdb'), args, o);
    if (code !== 0) throw new Error(`initdb exited with code ${code}; see ${o.logFile}`);
  } finally {
    await rm(pwfile, { force: true });
  }
  return true;
}

/** Starts the server detached; resolves once it accepts connections. */
export async function startPostgres(o: PostgresOptions & { timeoutMs?: number }): Promise<ProcessRecord> {
  // A server killed without a shutdown leaves postmaster.pid behind; postgres itself checks whether
  // that pid is still a postmaster and starts anyway if not.
  const record = spawnDetached(
    join(o.binDir, 'postgres'),
    ['-D', o.dataDir, '-p', String(o.port), '-c', `listen_addresses=${LOOPBACK}`, '-c', 'unix_socket_directories='],
    { logFile: o.logFile, env: postgresEnv(), cwd: o.dataDir, ...ids(o.account) },
  );
  await waitUntilReady('PostgreSQL', () => isPostgresReady(o.binDir, o.port), { timeoutMs: o.timeoutMs ?? 60_000, process: record });
  return record;
}

/** True when the server on `port` accepts connections (`pg_isready`). */
export async function isPostgresReady(binDir: string, port: number): Promise<boolean> {
  try {
    await exec(join(binDir, 'pg_isready'), ['-q', '-h', LOOPBACK, '-p', String(port), '-t', '2']);
    return true;
  } catch {
    return false;
  }
}

/** Stops the server with a fast shutdown (clients are disconnected, no recovery needed at the next start). */
export function stopPostgres(record: ProcessRecord | undefined): Promise<void> {
  // SIGTERM would wait for every client to leave, and the Temporal server never does.
  return stopProcess(record, { signal: 'SIGINT', graceMs: 30_000 });
}

const ids = (account: PostgresAccount | undefined) => (account ? { uid: account.uid, gid: account.gid } : {});

// A plain environment: the server does not need ours (and must not take root's HOME for its own).
const postgresEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' });

function runAs(binary: string, args: string[], o: PostgresOptions): Promise<number> {
  const fd = openSync(o.logFile, 'a');
  return new Promise<number>((resolve, reject) => {
    const child = spawn(binary, args, { env: postgresEnv(), cwd: join(o.dataDir, '..'), stdio: ['ignore', fd, fd], ...ids(o.account) });
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? 1));
  }).finally(() => closeSync(fd));
}
