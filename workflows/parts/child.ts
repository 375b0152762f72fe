import { patched, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { GotActivities } from '../../activities';
import { Inheritance, instructionsFor } from '../../src/fork/inherit';
import { type AnalyzedGoO, structureOf } from '../../src/goo/graph';
import { type GrsFact, GrsRecorder } from '../../src/grs/recorder';
import { PAYLOAD_LIMITS } from '../../src/run/footprint';
import { PATCH } from '../../src/run/wire';
import { taskIdOf } from '../../src/tasks/task-ref';
import { LOCAL_STEP_OPTIONS, llmOptionsOf } from '../activity-options';
import { CallSlots } from '../call-slots';
import type { RunContext } from '../context';
import { grsQuery, holdCallsSignal, progressQuery } from '../definitions';
import { rootCause } from '../failures';
import { HumanScoring } from '../human-scores';
import { partsInChildren } from '../paths/parts-in-children';
import { patientCalls } from '../paths/patient-calls';
import { progressOf } from '../progress';
import { RunGraph } from '../run-graph';
import { Scheduler } from '../scheduler';
import { showProgress } from '../web-ui';
import type { PartsInput, PartsResult } from './types';

/**
 * A batch of a forEach's parts in a history of its own (decision 71): the parts' grown operations run
 * here exactly as they would in the run (the same Scheduler and steps, so the same thought ids,
 * prompts and seeds), and the GRS facts they make go back to the run, which folds them into its GRS.
 * A failed operation comes back as data with the facts so far; a cancelled run cancels its children.
 */
export async function graphParts(input: PartsInput): Promise<PartsResult> {
  const facts: GrsFact[] = [];
  let collecting = false;
  const grs = new GrsRecorder((fact) => {
    if (collecting) facts.push(fact);
  });
  // The parts' operations and starting thoughts are the run's: known here, not facts of these parts.
  grs.init(taskIdOf(input.request.task), input.operations);
  grs.know(input.thoughts);
  collecting = true;

  const analyzed = analyzedOf(input);
  const graph = new RunGraph(analyzed, input.starts);
  // A child started since the patch calls as its run does (decision 90); an older child keeps its generation.
  const path = patched(PATCH.patientCalls) ? patientCalls : partsInChildren;
  const llmOptions = llmOptionsOf(input.request, path);
  const ctx: RunContext = {
    request: input.request,
    analyzed,
    graph,
    grs,
    root: input.thoughts[0]!,
    problem: input.problem,
    path,
    humans: new HumanScoring(),
    llm: proxyActivities<GotActivities>(llmOptions),
    llmOptions,
    local: proxyLocalActivities<GotActivities>(LOCAL_STEP_OPTIONS),
    checks: input.checks,
    checked: new Map(input.checked),
    slots: new CallSlots(input.slots, true, { bytes: PAYLOAD_LIMITS.workflowTaskBytes, storedFrom: input.storedFrom }),
    elsewhere: { costUsd: 0, tokens: 0, calls: 0, running: new Set<string>() },
    notes: new Map(),
    ...(input.inherits ? { inheritance: new Inheritance(input.inherits) } : {}),
    ...(input.instructions ? { steeredInstructions: (id: string) => instructionsFor(input.instructions, id) } : {}),
    progressChanged: () => showProgress(grs, graph, scheduler.running, []),
  };
  // Held while the run is paused (decision 104): the run signals its running children.
  let held = false;
  setHandler(holdCallsSignal, (hold) => {
    held = hold;
  });
  ctx.slots.holdWhile(() => held);
  const scheduler = new Scheduler(ctx);
  setHandler(grsQuery, () => grs.snapshot());
  setHandler(progressQuery, () => progressOf(grs, graph, scheduler.running, [], ctx.elsewhere.running));

  const failure = await scheduler.run();
  const given = new Set(input.checked.map(([id]) => id));
  return {
    facts,
    checked: [...ctx.checked].filter(([id]) => !given.has(id)),
    ...(failure ? { failure: { operation: failure.operation, message: rootCause(failure.error) } } : {}),
  };
}

/** The parts' operations as a graph of their own: each copy's operations without inputs start from its part's thoughts. */
function analyzedOf({ operations }: PartsInput): AnalyzedGoO {
  return { goo: { version: 1, operations }, byId: new Map(operations.map((op) => [op.id, op])), ...structureOf(operations) };
}
