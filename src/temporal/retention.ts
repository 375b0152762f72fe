/**
 * How long a namespace keeps a closed run's history: the GRS, `got inspect`, the Web UI and an
 * evaluation's later analysis all read it from there, and it is gone after this (decision 84).
 */

/** The variable that sets the local dev server's retention. */
export const SERVER_RETENTION_ENV = 'GOT_SERVER_RETENTION';

/** The local dev server's retention unless that variable says otherwise: a local store is kept like one (the dev server's own default is one day). */
export const LOCAL_RETENTION_DEFAULT = '30d';

const DAY_S = 86_400;

/** A retention written as hours or days (`72h`, `30d`) in seconds; `name` is the setting it came from, for the error. */
export function parseRetention(value: string, name: string): number {
  const match = /^(\d+)([hd])$/.exec(value.trim());
  if (!match) throw new Error(`${name} must be hours or days, like 72h or 30d; got "${value}"`);
  const seconds = Number(match[1]) * (match[2] === 'd' ? DAY_S : 3_600);
  // Temporal refuses less than a day.
  if (seconds < DAY_S) throw new Error(`${name} must be at least 1 day (24h), as Temporal requires; got "${value}"`);
  return seconds;
}

/** The local dev server's retention in seconds, from the environment, checked. */
export const localRetentionSeconds = (env: NodeJS.ProcessEnv): number =>
  parseRetention(env[SERVER_RETENTION_ENV] || LOCAL_RETENTION_DEFAULT, SERVER_RETENTION_ENV);

/** A retention in words: whole days as days, else hours. */
export const retentionInWords = (seconds: number): string =>
  seconds % DAY_S === 0 ? `${seconds / DAY_S} day${seconds === DAY_S ? '' : 's'}` : `${seconds / 3_600} hours`;
