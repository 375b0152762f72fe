import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ChatMessage } from '../tasks/task';
import type { Completion } from './client';

/** Everything that determines a response; the seed carries the branch, so k branches stay k samples. */
export interface CacheKeyParts {
  /** The endpoint's identity for caching (its base URL, or a name that outlives a changing port). */
  endpoint: string;
  model: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens?: number;
  samples: number;
  seed: number;
}

export function cacheKey(p: CacheKeyParts): string {
  const canonical = JSON.stringify([
    p.endpoint,
    p.model,
    p.messages.map((m) => [m.role, m.content]),
    p.temperature,
    p.maxTokens ?? null,
    p.samples,
    p.seed,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

export interface ResponseCache {
  get(key: string): Promise<Completion | undefined>;
  put(key: string, completion: Completion): Promise<void>;
}

/**
 * A persistent response cache in a directory, one file per response. Several workers (processes or
 * machines sharing the directory) use it safely: a file appears whole or not at all (written
 * aside, then renamed), and two workers writing the same key write the same answer.
 */
export class FileResponseCache implements ResponseCache {
  constructor(readonly dir: string) {}

  private path(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<Completion | undefined> {
    try {
      return JSON.parse(await readFile(this.path(key), 'utf8')) as Completion;
    } catch {
      return undefined; // absent, or unreadable: a miss either way
    }
  }

  async put(key: string, completion: Completion): Promise<void> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    const aside = `${path}.${randomUUID()}.tmp`;
    await writeFile(aside, JSON.stringify(completion));
    await rename(aside, path);
  }
}
