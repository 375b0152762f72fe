import { structureOf } from './graph';
import type { Operation, OperationOf } from './schema';

/**
 * How a forEach grows the graph, without the schema library (the workflow imports this module):
 * part i of forEach `F` runs a copy of the body whose ids are `F[i].<id>`. Brackets are not allowed
 * in an operation's own id, so a grown id never clashes with one a GoO declares; a forEach nested in
 * the body grows inside the copy (`F[0].G[2].x`).
 */

/** A forEach operation of a GoO (or one grown inside a body). */
export type ForEachOperation = OperationOf<'forEach'>;

/** The id of part `part` of forEach `forEachId`, the prefix of every operation that part runs: `F[2]`. */
export const partId = (forEachId: string, part: number): string => `${forEachId}[${part}]`;

/** The id a body operation takes in part `part`: `F[2].<bodyId>`. */
export const grownId = (forEachId: string, part: number, bodyId: string): string => `${partId(forEachId, part)}.${bodyId}`;

/** One part's copy of a forEach body: its operations (in body order) and the sinks whose outputs are the part's output. */
export interface GrownPart {
  operations: Operation[];
  /** Grown ids of the body operations nobody in the body consumes, in body order. */
  sinks: string[];
}

/**
 * The operations part `part` of a forEach runs: the body with every id and input renamed into the
 * part. A nested forEach keeps its body as declared: it grows when it runs.
 */
export function instantiate(forEach: ForEachOperation, part: number): GrownPart {
  const rename = (id: string) => grownId(forEach.id, part, id);
  const operations = forEach.body.map((op) => ({ ...op, id: rename(op.id), inputs: op.inputs.map(rename) }) as Operation);
  return { operations, sinks: structureOf(forEach.body).sinks.map(rename) };
}

/** Why a forEach must not go on with `count` parts, or undefined when it may: one message for a split and for `each`. */
export function tooManyParts(forEach: Pick<ForEachOperation, 'id' | 'maxParts' | 'parts'>, count: number): string | undefined {
  if (count <= forEach.maxParts) return undefined;
  const source =
    forEach.parts === 'each' ? `${count} input thoughts (one part each)` : `split "${forEach.parts.split}" made ${count} parts`;
  return `forEach "${forEach.id}": ${source}, more than its maxParts = ${forEach.maxParts}`;
}
