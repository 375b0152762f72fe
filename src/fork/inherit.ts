import type { GoO } from '../goo/schema';
import type { Thought, ThoughtState } from '../grs/types';
import { type AnswerShaping, type ForkInstruction, type ForkSpec, type Recalled, type RecalledCall, shapingOf } from './types';

/** One LLM call a fork is about to make, as it matches against its parent's. */
export interface CallAsk {
  /** `<operation id>/call-<key>`: positional, so the same step of the same graph has the same id. */
  callId: string;
  operationId: string;
  purpose: RecalledCall['purpose'];
  samples: number;
  inputs: readonly ThoughtState[];
}

/**
 * What a fork matches its calls against, as data: the parent's calls and thoughts and the verdicts on
 * the run as a whole. A child workflow running some of the fork's forEach parts is given the share of
 * it its parts need (`forParts`).
 */
export interface InheritanceData {
  parent: Recalled['parent'];
  spec: ForkSpec;
  calls: RecalledCall[];
  thoughts: Thought[];
  /** GoO operations whose definition is the parent's (a forEach's parts grow from it). */
  sameDefinition: string[];
  /** GoO operations at or after the fork point: their calls are made afresh. */
  afresh: string[];
  /** The seed and the settings that shape an answer (but the model) are the parent's. */
  sameShaping: boolean;
  /** The model is the parent's, or a fork point is named (upstream of it, the parent's model stands). */
  modelStands: boolean;
  decisions?: Recalled['decisions'];
}

/** The data a fork matches against, from its recalled parent and its own request. */
export function inheritanceOf(recalled: Recalled, spec: ForkSpec, fork: { goo: GoO; seed: number; llm: AnswerShaping }): InheritanceData {
  const parentOps = new Map(recalled.goo.operations.map((op) => [op.id, JSON.stringify(op)]));
  const { model, ...shaping } = shapingOf(fork.llm);
  const { model: parentModel, ...parentShaping } = shapingOf(recalled.llm);
  return {
    parent: recalled.parent,
    spec,
    calls: recalled.calls,
    thoughts: recalled.thoughts,
    sameDefinition: fork.goo.operations.filter((op) => parentOps.get(op.id) === JSON.stringify(op)).map((op) => op.id),
    afresh: [...afreshFrom(fork.goo, spec.at)],
    sameShaping: recalled.seed === fork.seed && JSON.stringify(shaping) === JSON.stringify(parentShaping),
    modelStands: model === parentModel || spec.at !== undefined,
    ...(recalled.decisions ? { decisions: recalled.decisions } : {}),
  };
}

/**
 * Which of a fork's calls its parent already made (decision 102). A call is the parent's when it is
 * the same step (call id, purpose, samples) of the same operation definition, on inputs with the same
 * states, with the same seed, settings that shape an answer and reviewer's instructions, and is not at
 * or after the fork point. Upstream of a named fork point the model may differ: the fork's model
 * answers from that point on. Pure and deterministic: the workflow asks it before each call.
 */
export class Inheritance {
  private readonly calls: Map<string, RecalledCall>;
  private readonly thoughts: Map<string, Thought>;
  private readonly sameDefinition: Set<string>;
  private readonly afresh: Set<string>;

  constructor(private readonly data: InheritanceData) {
    this.calls = new Map(data.calls.map((c) => [c.id, c]));
    this.thoughts = new Map(data.thoughts.map((t) => [t.id, t]));
    this.sameDefinition = new Set(data.sameDefinition);
    this.afresh = new Set(data.afresh);
  }

  /** The run forked from. */
  get parent(): Recalled['parent'] {
    return this.data.parent;
  }

  /** A person's decisions on the parent's merge, to apply again where the fork's merge has the same disagreements. */
  get parentDecisions(): Recalled['decisions'] {
    return this.data.spec.carryDecisions === false ? undefined : this.data.decisions;
  }

  /** The share a child workflow running these operations (a forEach's parts) needs: their calls and thoughts. */
  forParts(operationIds: readonly string[]): InheritanceData {
    const ids = new Set(operationIds);
    const calls = this.data.calls.filter((c) => ids.has(c.operationId));
    const needed = new Set(calls.flatMap((c) => [...c.inputThoughts, ...c.outputThoughts]));
    const { decisions: _decisions, ...rest } = this.data;
    return { ...rest, calls, thoughts: this.data.thoughts.filter((t) => needed.has(t.id)) };
  }

  /** The reviewer's instructions for an operation's steps, joined; undefined where none names it. */
  instructionsFor(operationId: string): string | undefined {
    return instructionsFor(this.data.spec.instructions, operationId);
  }

  /** The parent's thoughts of this call, in its output's order, when the parent made the same call; else undefined (call it). */
  answer(ask: CallAsk): { call: RecalledCall; thoughts: Thought[] } | undefined {
    if (!this.data.sameShaping || !this.data.modelStands) return undefined;
    const top = topOf(ask.operationId);
    if (!this.sameDefinition.has(top) || this.afresh.has(top) || this.atForkPoint(ask.operationId)) return undefined;
    const call = this.calls.get(ask.callId);
    if (!call || call.purpose !== ask.purpose || call.samples !== ask.samples) return undefined;
    if ((call.instructions ?? '') !== (this.instructionsFor(ask.operationId) ?? '')) return undefined;
    if (call.inputThoughts.length !== ask.inputs.length) return undefined;
    const sameInputs = call.inputThoughts.every((id, i) => {
      const t = this.thoughts.get(id);
      return t !== undefined && JSON.stringify(t.state) === JSON.stringify(ask.inputs[i]);
    });
    if (!sameInputs) return undefined;
    const thoughts = call.outputThoughts.map((id) => this.thoughts.get(id));
    if (thoughts.some((t) => t === undefined)) return undefined;
    return { call, thoughts: thoughts as Thought[] };
  }

  /** The score the parent's judge gave a thought with these states, when the same judge call was made. */
  judged(ask: CallAsk): { call: RecalledCall; score: number } | undefined {
    const same = this.answer({ ...ask, purpose: 'score' });
    const judged = same && this.thoughts.get(same.call.inputThoughts[0]!);
    return judged?.score !== undefined ? { call: same!.call, score: judged.score } : undefined;
  }

  /** What an operation passes on: at a fork point that names a thought, only that thought (when the operation made it). */
  goesOn(operationId: string, out: Thought[]): Thought[] {
    const at = this.data.spec.at;
    if (!at?.includes('/') || operationOfThought(at) !== operationId) return out;
    const kept = out.filter((t) => t.id === at);
    return kept.length ? kept : out;
  }

  private atForkPoint(operationId: string): boolean {
    const at = this.data.spec.at;
    if (at === undefined || at.includes('/')) return false;
    return operationId === at || operationId.startsWith(`${at}.`) || operationId.startsWith(`${at}[`);
  }
}

/** The GoO operation an operation id belongs to: `merge[3].generate` → `merge`. */
export const topOf = (operationId: string): string => operationId.split(/[[.]/, 1)[0]!;

/** `merge[3].generate/0.1` → `merge[3].generate`. */
export const operationOfThought = (thoughtId: string): string => thoughtId.slice(0, thoughtId.lastIndexOf('/'));

/** The instructions naming an operation, itself or a part or forEach it grew in, joined in the order given. */
export function instructionsFor(instructions: readonly ForkInstruction[] | undefined, operationId: string): string | undefined {
  const mine = (instructions ?? []).filter(
    (i) => operationId === i.operation || operationId.startsWith(`${i.operation}.`) || operationId.startsWith(`${i.operation}[`),
  );
  return mine.length ? mine.map((i) => i.text).join('\n') : undefined;
}

/**
 * The GoO operations made afresh: those after the fork point, and the fork point itself when it is a
 * GoO operation (a thought's operation is inherited). A point inside a forEach's part (`merge[3]`, or
 * one of its thoughts) starts only that part afresh: after it, calls whose inputs it changed are
 * made again and the other parts' are not, so no operation is made afresh as a whole.
 */
function afreshFrom(goo: GoO, at: string | undefined): Set<string> {
  const point = at?.includes('/') ? operationOfThought(at) : at;
  if (at === undefined || point === undefined || point !== topOf(point)) return new Set();
  const start = point;
  const successors = new Map<string, string[]>(goo.operations.map((op) => [op.id, []]));
  for (const op of goo.operations) for (const input of op.inputs) successors.get(input)?.push(op.id);
  const after = new Set<string>();
  const visit = (id: string) => {
    for (const next of successors.get(id) ?? []) {
      if (after.has(next)) continue;
      after.add(next);
      visit(next);
    }
  };
  visit(start);
  // The fork point's own GoO operation starts afresh when the point is that operation.
  if (!at.includes('/') && at === start) after.add(start);
  return after;
}
