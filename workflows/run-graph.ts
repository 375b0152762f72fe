import type { AnalyzedGoO } from '../src/goo/graph';
import { type ForEachOperation, instantiate } from '../src/goo/grow';
import type { Operation } from '../src/goo/schema';

/** Where a grown operation without input operations starts: its part's thoughts, at the time its forEach grew. */
export interface PartStart {
  thoughts: string[];
  at: number;
}

/**
 * The graph a run is executing: the GoO's operations and those its forEach operations grew so
 * far. A GoO without forEach never grows, and every lookup answers what the analysed GoO says.
 */
export class RunGraph {
  private readonly grown = new Map<string, Operation>();
  private readonly grownSuccessors = new Map<string, string[]>();
  /** The forEach each grown operation belongs to (its direct one, for nested forEach operations). */
  private readonly owners = new Map<string, string>();
  /** Grown operations by the forEach that grew them, in growing order. */
  private readonly byForEach = new Map<string, string[]>();
  private readonly starts = new Map<string, PartStart>();
  private readonly partCounts = new Map<string, number>();
  /** Operations a person added while the run ran (decision 104), in the order they were added, and who reads what they make. */
  private readonly added = new Map<string, Operation>();
  private readonly addedReaders = new Map<string, string[]>();

  /** @param starts where operations without input operations start, for a child workflow's parts grown in its run (decision 71) */
  constructor(
    private readonly analyzed: AnalyzedGoO,
    starts: Iterable<[string, PartStart]> = [],
  ) {
    for (const [id, start] of starts) this.starts.set(id, start);
  }

  op(id: string): Operation {
    return this.grown.get(id) ?? this.analyzed.byId.get(id) ?? this.added.get(id)!;
  }

  successorsOf(id: string): readonly string[] {
    const own = this.grownSuccessors.get(id) ?? this.analyzed.successors.get(id) ?? [];
    const readers = this.addedReaders.get(id);
    return readers ? [...own, ...readers] : own;
  }

  /** Operations in the graph now: the GoO's, every grown one and every added one (the progress total, which grows with the graph). */
  get size(): number {
    return this.analyzed.order.length + this.grown.size + this.added.size;
  }

  /** Adds operations a person asked for while the run ran (decision 104): checked already; they read the graph's operations or each other. */
  add(operations: readonly Operation[]): void {
    for (const op of operations) this.added.set(op.id, op);
    for (const op of operations)
      for (const input of op.inputs) this.addedReaders.set(input, [...(this.addedReaders.get(input) ?? []), op.id]);
  }

  /** The forEach that grew `id`, if a forEach did. */
  ownerOf(id: string): string | undefined {
    return this.owners.get(id);
  }

  /** The operations forEach `id` grew, in part order. */
  grownBy(id: string): readonly string[] {
    return this.byForEach.get(id) ?? [];
  }

  /** The part's thoughts a grown operation without input operations starts from. */
  startOf(id: string): PartStart | undefined {
    return this.starts.get(id);
  }

  /**
   * Grows `forEach` by its parts: each part that runs the body (a start given) gets its copy of the
   * body, starting from the part's thoughts; a part kept as it is (no start) gets none. Returns each
   * part's copy and its sinks, in part order.
   */
  grow(
    forEach: ForEachOperation,
    starts: readonly (PartStart | undefined)[],
  ): ({ operations: Operation[]; sinks: string[] } | undefined)[] {
    const mine: string[] = [];
    this.byForEach.set(forEach.id, mine);
    this.partCounts.set(forEach.id, starts.length);
    return starts.map((start, part) => {
      if (!start) return undefined;
      const copy = instantiate(forEach, part);
      for (const op of copy.operations) {
        this.grown.set(op.id, op);
        this.grownSuccessors.set(op.id, []);
        this.owners.set(op.id, forEach.id);
        mine.push(op.id);
        if (op.inputs.length === 0) this.starts.set(op.id, start);
      }
      for (const op of copy.operations) for (const input of op.inputs) this.grownSuccessors.get(input)!.push(op.id);
      return copy;
    });
  }

  /** Every operation in the GoO's order, each forEach preceded by what it grew (its parts run before it ends). */
  inOrder(): Operation[] {
    const expand = (id: string): Operation[] => [...this.grownBy(id).flatMap(expand), this.op(id)];
    return [...this.analyzed.order.flatMap(expand), ...this.added.values()];
  }

  /** What has grown, for the Web UI's progress line (`F: 3 parts, 9 operations`); empty while nothing has. */
  growthSummary(limit = 4): string[] {
    const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    const lines = [...this.partCounts].map(
      ([id, parts]) => `${id}: ${plural(parts, 'part')}, ${plural(this.grownBy(id).length, 'operation')}`,
    );
    return lines.length > limit ? [...lines.slice(0, limit), `and ${lines.length - limit} more`] : lines;
  }
}
