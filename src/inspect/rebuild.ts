import type { Client } from '@temporalio/client';
import { type DataConverter, defaultPayloadConverter, type LoadedDataConverter, type Payload } from '@temporalio/common';
import { decodeFromPayloadsAtIndex, ExternalStorageRunner, loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { GotActivities, PreparedRun } from '../../activities';
import { workflowCodeOption } from '../../worker/bundle';
import { withoutWorkflowStackTraces } from '../../worker/stack-traces';
import { dataConverterFromEnv, whyUnreadable } from '../codec/data-converter';
import { type GrsFact, GrsRecorder } from '../grs/recorder';
import type { Grs } from '../grs/types';
import type { RunRequestInput } from '../run/request';
import { PARTS_WORKFLOW_TYPE } from '../run/wire';

type History = temporal.api.history.v1.IHistory;

export interface RebuildOptions {
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** Decodes the history's payloads (encrypted ones need the keys); default: `dataConverterFromEnv()`. */
  dataConverter?: DataConverter;
  /** The run's workflow id: its child workflows' ids are made from it (default: read from the history's children, if any). */
  workflowId?: string;
}

/**
 * Rebuilds a run's GRS from its event history alone: the Controller is replayed over the history
 * (no server, no activity runs again), and the GRS facts it re-derives while replaying are folded
 * into a fresh GRS. The replay is deterministic, so the result equals what the run itself
 * reported, and it works for finished, failed and still running runs alike.
 */
export async function rebuildGrs(history: History, o: RebuildOptions = {}): Promise<Grs> {
  const recorder = new GrsRecorder();
  const dataConverter = o.dataConverter ?? dataConverterFromEnv();
  const unreadable = whyUnreadable(history.events, dataConverter);
  if (unreadable) throw new Error(unreadable);
  withoutWorkflowStackTraces();
  await Worker.runReplayHistory(
    {
      ...(o.workflowBundle ? { workflowBundle: o.workflowBundle } : workflowCodeOption()),
      replayName: 'got-inspect',
      ...(dataConverter ? { dataConverter } : {}),
      sinks: { grsReplay: { fact: { fn: (_info: unknown, fact: GrsFact) => recorder.apply(fact), callDuringReplay: true } } },
    },
    history,
    o.workflowId ?? workflowIdOf(history),
  );
  return recorder.snapshot();
}

/**
 * The run's workflow id as its child workflows' ids say it (`<run>.parts.<batch>`, decision 71): a
 * replay must start them under the same ids. Undefined for a run without children, whose replay needs none.
 */
function workflowIdOf(history: History): string | undefined {
  for (const event of history.events ?? []) {
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child?.workflowType?.name !== PARTS_WORKFLOW_TYPE || !child.workflowId) continue;
    return /^(.*)\.parts\.[^[]*\[\d+(?:-\d+)?\]$/.exec(child.workflowId)?.[1];
  }
  return undefined;
}

/** Fetches a run's history from the server and rebuilds its GRS, decoding payloads as the client does unless told otherwise. */
export async function inspectRun(
  client: Client,
  workflowId: string,
  runId?: string,
  o: RebuildOptions = {},
): Promise<{ grs: Grs; history: History }> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  // The client's codecs and store read the history as it was written; a plain client leaves it to the environment's.
  const converter = client.options.dataConverter;
  const clientCodecs = converter.payloadCodecs?.length || converter.externalStorage ? { dataConverter: converter } : {};
  return { grs: await rebuildGrs(history, { workflowId, ...clientCodecs, ...o }), history };
}

/**
 * The run request a history ran: its first event's input, decoded like any payload. A request that
 * named a scheme comes back as the worker expanded it (the GoO and labels `prepareRun` recorded), as
 * if the client had sent that GoO; one refused before it was expanded comes back as sent.
 */
export async function runRequestOf(history: History, dataConverter?: DataConverter): Promise<RunRequestInput> {
  const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  if (!input?.length) throw new Error('the history does not start with a workflow execution carrying a run request');
  const converter = loadDataConverter(dataConverter ?? dataConverterFromEnv());
  const sent = await decodeFirst<RunRequestInput>(converter, input);
  if (sent.goo !== undefined || sent.scheme === undefined) return sent;
  const prepared = await preparedRunOf(history, converter);
  if (!prepared?.request) return sent;
  return { ...prepared.request, problem: 'problem' in prepared ? prepared.problem : sent.problem } as RunRequestInput;
}

/** The local activity that checks a request (and expands a named scheme) before any LLM call. */
const PREPARE_RUN = 'prepareRun' satisfies keyof GotActivities;

/** What the run's `prepareRun` returned, from its local activity marker; undefined when it failed or has not run. */
async function preparedRunOf(history: History, converter: LoadedDataConverter): Promise<PreparedRun | undefined> {
  for (const event of history.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) continue;
    // Core's own bookkeeping (the activity's type, times) is plain JSON, never encoded (docs/decisions.md, 12).
    const meta = marker.details?.data?.payloads?.[0];
    if (!meta || defaultPayloadConverter.fromPayload<{ activity_type?: string }>(meta).activity_type !== PREPARE_RUN) continue;
    const result = marker.details?.result?.payloads;
    return result?.length ? decodeFirst<PreparedRun>(converter, result) : undefined;
  }
  return undefined;
}

/** The marker Core records a local activity's outcome in. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** The first of some payloads, read through the store where it was kept there, then decoded. */
async function decodeFirst<T>(converter: LoadedDataConverter, payloads: Payload[]): Promise<T> {
  // A history as fetched holds references where payloads were stored: read them through the store first.
  const read = converter.externalStorage ? await new ExternalStorageRunner(converter.externalStorage).retrieve(payloads) : payloads;
  return decodeFromPayloadsAtIndex<T>(converter, 0, read);
}
