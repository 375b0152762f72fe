import { resolve } from 'node:path';

/** Where the CLI keeps the local dev server's state (its SQLite file, log and pid): $GOT_STATE_DIR, else ./.got. */
export const stateDir = () => resolve(process.env.GOT_STATE_DIR ?? '.got');
