import type { Client } from '@temporalio/client';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { GrsRecorder, type GrsFact } from '../grs/recorder';
import type { Grs } from '../grs/types';
import { WORKFLOWS_PATH } from '../../worker/create';

type History = temporal.api.history.v1.IHistory;

/**
 * Rebuilds a run's GRS from its event history alone: the Controller is replayed over the history
 * (no server, no activity runs again), and the GRS facts it re-derives while replaying are folded
 * into a fresh GRS. The replay is deterministic, so the result equals what the run itself
 * reported, and it works for finished, failed and still running runs alike.
 */
export async function rebuildGrs(history: History, o: { workflowBundle?: WorkflowBundleWithSourceMap } = {}): Promise<Grs> {
  const recorder = new GrsRecorder();
  await Worker.runReplayHistory(
    {
      ...(o.workflowBundle ? { workflowBundle: o.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
      replayName: 'got-inspect',
      sinks: { grsReplay: { fact: { fn: (_info: unknown, fact: GrsFact) => recorder.apply(fact), callDuringReplay: true } } },
    },
    history,
  );
  return recorder.snapshot();
}

/** Fetches a run's history from the server and rebuilds its GRS. */
export async function inspectRun(client: Client, workflowId: string, runId?: string, o: { workflowBundle?: WorkflowBundleWithSourceMap } = {}): Promise<{ grs: Grs; history: History }> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return { grs: await rebuildGrs(history, o), history };
}
