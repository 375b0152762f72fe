import { type Client, WorkflowExecutionAlreadyStartedError, type WorkflowHandle } from '@temporalio/client';
import { payloadStoreOf } from '../codec/data-converter';
import { DEFAULT_TASK_QUEUE, STUDY_QUERY, STUDY_WORKFLOW_TYPE } from '../run/wire';
import { checkStudy, type StudyRequestInput } from '../tune/request';
import type { StudyProgress, StudyResult } from '../tune/results';

/**
 * Starting a study (`tuneStudy`) and reading it. A study is checked here before it starts (the
 * worker checks it again): bad input is refused before a server, a worker or an LLM is touched.
 */

/** Checks the study and starts it; a study with the same id that runs or completed is joined rather than started again. */
export async function startStudy(
  client: Client,
  request: StudyRequestInput,
  o: { taskQueue?: string; workflowId: string },
): Promise<WorkflowHandle> {
  checkStudy(request, { storeThreshold: payloadStoreOf(client.options.dataConverter)?.threshold });
  return client.workflow
    .start(STUDY_WORKFLOW_TYPE, {
      taskQueue: o.taskQueue ?? DEFAULT_TASK_QUEUE,
      workflowId: o.workflowId,
      args: [request],
      // Rerunning `got tune` into the same folder joins the study under way; a failed one starts again.
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    })
    .catch((e: unknown) => {
      // It finished: read its result instead of paying for it again.
      if (e instanceof WorkflowExecutionAlreadyStartedError) return client.workflow.getHandle(o.workflowId);
      throw e;
    });
}

export const queryStudyProgress = (handle: WorkflowHandle) => handle.query<StudyProgress>(STUDY_QUERY.studyProgress);
export const studyResultOf = (handle: WorkflowHandle) => handle.result() as Promise<StudyResult>;
