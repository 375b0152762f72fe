import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { temporalOf } from '../src/cli/commands/doctor';
import { retentionSeconds } from '../src/cluster/deploy-files';
import { ensureLocalServer, stopLocalServer } from '../src/devserver/local-server';
import { freePort } from '../src/devserver/process';
import { namespaceRetentionSeconds } from '../src/temporal/namespace-retention';
import { LOCAL_RETENTION_DEFAULT, localRetentionSeconds, parseRetention, retentionInWords } from '../src/temporal/retention';

/** Decision 84: the local dev server keeps finished runs for GOT_SERVER_RETENTION (default 30 days), not the dev server's one day. */

const DAY = 86_400;

describe('the retention setting', () => {
  it('reads hours and days, and names the setting when it refuses a value', () => {
    expect(parseRetention('72h', 'X')).toBe(3 * DAY);
    expect(parseRetention('30d', 'X')).toBe(30 * DAY);
    expect(() => parseRetention('3 weeks', 'GOT_SERVER_RETENTION')).toThrow(/GOT_SERVER_RETENTION must be hours or days/);
    expect(() => parseRetention('12h', 'GOT_SERVER_RETENTION')).toThrow(/GOT_SERVER_RETENTION must be at least 1 day/);
    expect(() => retentionSeconds('1h')).toThrow(/TEMPORAL_NAMESPACE_RETENTION/);
  });

  it('defaults to 30 days for the local server, and an empty variable is no setting', () => {
    expect(LOCAL_RETENTION_DEFAULT).toBe('30d');
    expect(localRetentionSeconds({})).toBe(30 * DAY);
    expect(localRetentionSeconds({ GOT_SERVER_RETENTION: '' })).toBe(30 * DAY);
    expect(localRetentionSeconds({ GOT_SERVER_RETENTION: '7d' })).toBe(7 * DAY);
    expect([retentionInWords(DAY), retentionInWords(30 * DAY), retentionInWords(36 * 3600)]).toEqual(['1 day', '30 days', '36 hours']);
  });
});

describe('got doctor', () => {
  it("says how long the local server keeps runs, refuses a bad setting naming it, and leaves a configured server's retention to its owner", () => {
    expect(temporalOf({ GOT_SERVER_RETENTION: '90d' })).toMatchObject({ ok: true, localRetentionSeconds: 90 * DAY });
    expect(temporalOf({ GOT_SERVER_RETENTION: 'a while' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/GOT_SERVER_RETENTION/),
    });
    expect(temporalOf({ TEMPORAL_ADDRESS: 'temporal.example:7233' })).not.toHaveProperty('localRetentionSeconds');
  });
});

describe('the local dev server keeps runs as long as the setting says', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'got-retention-'));
  afterAll(async () => {
    await stopLocalServer(stateDir);
    rmSync(stateDir, { recursive: true, force: true });
  });

  const retentionOf = async (address: string) => {
    const connection = await Connection.connect({ address });
    try {
      return await namespaceRetentionSeconds(connection, 'default');
    } finally {
      await connection.close();
    }
  };

  it('sets it when it starts the server, changes it when the setting changes, and refuses a bad one before starting anything', async () => {
    const ports = { port: await freePort(), uiPort: await freePort(), codecPort: await freePort() };
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);

    const started = await ensureLocalServer({ stateDir, ...ports, env: { GOT_SERVER_RETENTION: '3d' }, log });
    expect(started.started).toBe(true);
    expect(await retentionOf(started.address)).toBe(3 * DAY);
    // The dev server's own default was a day: the change is said.
    expect(lines).toContainEqual(expect.stringMatching(/now keeps finished runs for 3 days \(it kept them 1 day\); GOT_SERVER_RETENTION/));
    expect(JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')).retentionSeconds).toBe(3 * DAY);

    lines.length = 0;
    const same = await ensureLocalServer({ stateDir, ...ports, env: { GOT_SERVER_RETENTION: '3d' }, log });
    expect(same.started).toBe(false);
    expect(lines.some((l) => l.includes('keeps finished runs'))).toBe(false);

    const longer = await ensureLocalServer({ stateDir, ...ports, env: { GOT_SERVER_RETENTION: '10d' }, log });
    expect(longer.started).toBe(false);
    expect(await retentionOf(longer.address)).toBe(10 * DAY);
    expect(lines).toContainEqual(expect.stringMatching(/now keeps finished runs for 10 days \(it kept them 3 days\)/));

    await expect(ensureLocalServer({ stateDir, ...ports, env: { GOT_SERVER_RETENTION: 'forever' }, log })).rejects.toThrow(
      /GOT_SERVER_RETENTION must be hours or days/,
    );
    expect(await retentionOf(longer.address)).toBe(10 * DAY);
  });
});
