import { createRequire } from 'node:module';
import workerThreads from 'node:worker_threads';

/**
 * The Temporal SDK keeps a stack trace of every promise workflow code creates, for the `__stack_trace`
 * query (the Web UI's "Stack Trace" tab): a V8 promise hook that, per promise, compiles a function,
 * captures an Error's stack and maps every frame through the bundle's source map. On a child of a
 * thousand LLM calls that was about 60% of a workflow task's CPU, and replaying its history took
 * longer than a workflow task may (decision 72). Workers and replays therefore run without it,
 * unless `GOT_WORKFLOW_STACK_TRACES=on`; the query then answers that stack traces are not enabled.
 *
 * It reaches into the SDK's internals (pinned, `@temporalio/worker` 1.24.0): the hooks are installed
 * by `globalHandlers` of `lib/workflow/vm-shared.js` in each thread that runs workflow code, so the
 * workflow threads start from a module that turns it off before loading the SDK's thread entry.
 */

export const WORKFLOW_STACK_TRACES_ENV = 'GOT_WORKFLOW_STACK_TRACES';

const require = createRequire(import.meta.url);
const VM_SHARED = require.resolve('@temporalio/worker/lib/workflow/vm-shared');
const SDK_THREAD_ENTRY = require.resolve('@temporalio/worker/lib/workflow/workflow-worker-thread');

interface GlobalHandlers {
  installed: boolean;
  promiseHookInstalled: boolean;
  setPromiseHook(): void;
  stopPromiseHook(): void;
}

/** Whether workers keep the SDK's promise stack traces (`GOT_WORKFLOW_STACK_TRACES=on|1|true`). */
export const workflowStackTracesWanted = (env: NodeJS.ProcessEnv = process.env): boolean =>
  /^(on|1|true)$/i.test(env[WORKFLOW_STACK_TRACES_ENV] ?? '');

/** Turns the hook off in this thread (replays run here) and in every workflow thread started from now on. Idempotent. */
export function withoutWorkflowStackTraces(env: NodeJS.ProcessEnv = process.env): void {
  if (workflowStackTracesWanted(env)) return;
  offInThisThread(require(VM_SHARED).globalHandlers as GlobalHandlers);
  startWorkflowThreadsWithoutHook();
}

function offInThisThread(handlers: GlobalHandlers): void {
  if (handlers.promiseHookInstalled) handlers.stopPromiseHook();
  handlers.promiseHookInstalled = false;
  handlers.setPromiseHook = () => undefined;
}

/** The code a workflow thread starts with: the same as the main thread's, then the SDK's own entry. */
const THREAD_ENTRY = `const handlers = require(${JSON.stringify(VM_SHARED)}).globalHandlers;
handlers.setPromiseHook = () => undefined;
require(${JSON.stringify(SDK_THREAD_ENTRY)});`;

let patched = false;

/** The SDK starts its workflow threads with `new worker_threads.Worker(<its thread entry>)`, looked up when called. */
function startWorkflowThreadsWithoutHook(): void {
  if (patched) return;
  patched = true;
  const Original = workerThreads.Worker;
  class WorkflowThread extends Original {
    constructor(filename: string | URL, options?: workerThreads.WorkerOptions) {
      if (filename === SDK_THREAD_ENTRY) super(THREAD_ENTRY, { ...options, eval: true });
      else super(filename, options);
    }
  }
  workerThreads.Worker = WorkflowThread;
}
