import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { decodeFromPayloadsAtIndex, ExternalStorageRunner, loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { workflowCodeOption } from '../../worker/bundle';
import { dataConverterFromEnv, whyUnreadable } from '../codec/data-converter';
import { type GrsFact, GrsRecorder } from '../grs/recorder';
import type { Grs } from '../grs/types';
import type { RunRequestInput } from '../run/request';

type History = temporal.api.history.v1.IHistory;

export interface RebuildOptions {
  workflowBundle?: WorkflowBundleWithSourceMap;
  /** Decodes the history's payloads (encrypted ones need the keys); default: `dataConverterFromEnv()`. */
  dataConverter?: DataConverter;
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
  await Worker.runReplayHistory(
    {
      ...(o.workflowBundle ? { workflowBundle: o.workflowBundle } : workflowCodeOption()),
      replayName: 'got-inspect',
      ...(dataConverter ? { dataConverter } : {}),
      sinks: { grsReplay: { fact: { fn: (_info: unknown, fact: GrsFact) => recorder.apply(fact), callDuringReplay: true } } },
    },
    history,
  );
  return recorder.snapshot();
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
  return { grs: await rebuildGrs(history, { ...clientCodecs, ...o }), history };
}

/** The run request a history started with (its first event's input), decoded like any payload. */
export async function runRequestOf(history: History, dataConverter?: DataConverter): Promise<RunRequestInput> {
  const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  if (!input?.length) throw new Error('the history does not start with a workflow execution carrying a run request');
  const converter = loadDataConverter(dataConverter ?? dataConverterFromEnv());
  // A history as fetched holds references where payloads were stored: read them through the store first.
  const payloads = converter.externalStorage ? await new ExternalStorageRunner(converter.externalStorage).retrieve(input) : input;
  return decodeFromPayloadsAtIndex<RunRequestInput>(converter, 0, payloads);
}
