import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { GooBuilder } from '../../src/goo/builder';
import type { GoO, Operation } from '../../src/goo/schema';
import { type Issue, ValidationError, validateGoO } from '../../src/goo/validate';
import type { AnyTask } from '../../src/tasks/task';

/** Runs fn, expects a ValidationError and returns its issues. */
export function validationIssues(fn: () => unknown): Issue[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).issues;
  }
  throw new Error('expected a ValidationError, but nothing was thrown');
}

/** A file of the paper's datasets, read from `../shared` beside the checkout (never copied into it). */
/** The paper's datasets, beside the project (`../shared`). */
export const SHARED_DATA_DIR = fileURLToPath(new URL('../../../shared/data/got-examples/', import.meta.url));
export const readSharedData = (file: string) => readFileSync(join(SHARED_DATA_DIR, file), 'utf8');

/** Every scheme of a task at the given sizes: unique operation ids, a valid GoO, only prompts the task can build. */
export function expectSchemesWellFormed(task: AnyTask, sizes: readonly number[] = task.sizes, problemOf?: (size: number) => unknown): void {
  for (const [name, scheme] of Object.entries(task.schemes)) {
    for (const size of sizes) {
      const goo = scheme({ size, ...(problemOf ? { problem: problemOf(size) } : {}) });
      const ids = goo.operations.map((o) => o.id);
      expect(new Set(ids).size, `${name} ${size}`).toBe(ids.length);
      expect(() => validateGoO(goo)).not.toThrow();
      for (const o of goo.operations) if ('prompt' in o) expect(task.prompts).toContain(o.prompt);
    }
  }
}

/** A GoO as a graph to walk in shape tests: `one(id, type)` is the single successor of that type. */
export function gooGraph(goo: GoO) {
  const a = validateGoO(goo);
  const op = (id: string) => a.byId.get(id)!;
  const succ = (id: string) => a.successors.get(id)!.map(op);
  const one = <T extends Operation['type']>(id: string, type: T): Extract<Operation, { type: T }> => {
    const found = succ(id).filter((o) => o.type === type);
    expect(found, `one ${type} after ${id}`).toHaveLength(1);
    return found[0] as Extract<Operation, { type: T }>;
  };
  return { a, op, succ, one, roots: goo.operations.filter((o) => o.inputs.length === 0) };
}

export const expectKeepBest1 = (o: Operation) => expect(o).toMatchObject({ type: 'keepBestN', n: 1, higherIsBetter: false });
export const expectLocalScore = (o: Operation) => expect(o).toMatchObject({ type: 'score', scorer: { kind: 'local' } });
export const sameSet = (xs: readonly string[], ys: readonly string[]) => expect([...xs].sort()).toEqual([...ys].sort());

/**
 * Sorting 32 numbers through nested forEach over the task's `chunks` split: two halves of 16, each
 * cut into two quarters of 8 sorted `k` times, the quarters of a half merged, then the halves merged.
 */
export function nestedChunksSortingGoo(k?: number): GoO {
  const b = new GooBuilder();
  const halves = b.forEach(null, {
    id: 'halves',
    parts: { split: 'chunks', params: { size: 16 } },
    maxParts: 2,
    body: (bb) => {
      const quarters = bb.forEach(null, {
        id: 'quarters',
        parts: { split: 'chunks', params: { size: 8 } },
        maxParts: 2,
        body: (q) => q.generate(null, { id: 'sort', prompt: 'sort', ...(k !== undefined ? { k } : {}) }),
      });
      bb.aggregate(quarters, { id: 'merge', prompt: 'merge' });
    },
  });
  b.aggregate(halves, { id: 'merge', prompt: 'merge' });
  return b.build();
}
