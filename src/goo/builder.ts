import type { GoO, Operation } from './schema';

/** A handle on an operation already added to the builder: pass it as another operation's input. */
export type Ref = string & { readonly __op: unique symbol };
type Inputs = Ref | readonly Ref[];

interface Common {
  /** A readable id for the Web UI and the GRS; defaults to `<prompt or type>-<n>`. */
  id?: string;
}
type LlmOptions = Common & { prompt: string; params?: Record<string, unknown> };

/**
 * Builds a GoO in the order the paper's listings read: each call adds one operation fed by the
 * given inputs and returns its Ref. The result is plain data, validated when a run starts.
 */
export class GooBuilder {
  private readonly ops: Operation[] = [];
  private readonly counters = new Map<string, number>();

  generate(inputs: Inputs | null, o: LlmOptions & { k?: number }): Ref {
    return this.add({ type: 'generate', prompt: o.prompt, k: o.k ?? 1, params: o.params as never }, inputs ?? [], o.prompt, o.id);
  }

  aggregate(inputs: Inputs, o: LlmOptions & { k?: number }): Ref {
    return this.add({ type: 'aggregate', prompt: o.prompt, k: o.k ?? 1, params: o.params as never }, inputs, o.prompt, o.id);
  }

  improve(inputs: Inputs, o: LlmOptions): Ref {
    return this.add({ type: 'improve', prompt: o.prompt, params: o.params as never }, inputs, o.prompt, o.id);
  }

  validateAndImprove(inputs: Inputs, o: LlmOptions & { tries?: number }): Ref {
    return this.add(
      { type: 'validateAndImprove', prompt: o.prompt, tries: o.tries ?? 3, params: o.params as never },
      inputs,
      'validate',
      o.id,
    );
  }

  score(inputs: Inputs, o: Common & { llm?: { prompt: string; samples?: number } } = {}): Ref {
    const scorer = o.llm ? { kind: 'llm' as const, prompt: o.llm.prompt, samples: o.llm.samples ?? 1 } : { kind: 'local' as const };
    return this.add({ type: 'score', scorer }, inputs, 'score', o.id);
  }

  keepBestN(inputs: Inputs, o: Common & { n: number; higherIsBetter: boolean }): Ref {
    return this.add({ type: 'keepBestN', n: o.n, higherIsBetter: o.higherIsBetter }, inputs, 'keep', o.id);
  }

  keepValidOnly(inputs: Inputs, o: Common = {}): Ref {
    return this.add({ type: 'keepValidOnly' }, inputs, 'valid', o.id);
  }

  selector(inputs: Inputs, o: Common & { where: Record<string, string | number | boolean> }): Ref {
    return this.add({ type: 'selector', where: o.where }, inputs, 'select', o.id);
  }

  groundTruth(inputs: Inputs, o: Common = {}): Ref {
    return this.add({ type: 'groundTruth' }, inputs, 'groundtruth', o.id);
  }

  /**
   * A forEach: grows the graph at run time by one copy of the body per part. `body` builds the body
   * with a builder of its own (ids local to the body); there, an operation given no inputs (`null`,
   * or `[]`) starts from the part's thoughts.
   */
  forEach(
    inputs: Inputs | null,
    o: Common & {
      parts: 'each' | { split: string; params?: Record<string, unknown> };
      maxParts: number;
      body?: (body: GooBuilder) => void;
    },
  ): Ref {
    const body = new GooBuilder();
    o.body?.(body);
    const parts = o.parts === 'each' ? o.parts : { split: o.parts.split, ...(o.parts.params ? { params: o.parts.params } : {}) };
    return this.add(
      { type: 'forEach', parts: parts as never, maxParts: o.maxParts, body: body.build().operations },
      inputs ?? [],
      'foreach',
      o.id,
    );
  }

  build(): GoO {
    return { version: 1, operations: this.ops.map((op) => ({ ...op, inputs: [...op.inputs] })) };
  }

  /** `<stem>-<n>` with the next n whose id is not taken (explicit ids may have taken some). */
  private nextFreeId(stem: string): string {
    let n = this.counters.get(stem) ?? 0;
    do n++;
    while (this.ops.some((op) => op.id === `${stem}-${n}`));
    this.counters.set(stem, n);
    return `${stem}-${n}`;
  }

  private add(op: DistributiveOmit<Operation, 'id' | 'inputs'>, inputs: Inputs, stem: string, explicit?: string): Ref {
    const id = explicit ?? this.nextFreeId(stem);
    const list = typeof inputs === 'string' ? [inputs] : [...inputs];
    // Optional fields left undefined are dropped, so the GoO is the same after a JSON round trip.
    const defined = Object.fromEntries(Object.entries(op).filter(([, v]) => v !== undefined));
    this.ops.push({ ...defined, id, inputs: list } as unknown as Operation);
    return id as Ref;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
