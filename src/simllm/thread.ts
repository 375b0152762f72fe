import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { type SimLlmOptions, startSimulatedLlm } from './server';

/**
 * The simulated LLM in a worker thread of this process, for the CLI: its tokenizer's tables (~0.7 s
 * of CPU to load) and its answers are computed beside the Temporal worker's event loop instead of
 * on it, as a remote endpoint's would be. This module is also the thread's entry point.
 */

/** A simulated LLM running in its own thread. */
export interface SimulatedLlmThread {
  /** `http://127.0.0.1:PORT/v1`. */
  baseURL: string;
  close(): Promise<void>;
}

interface ThreadData {
  simulatedLlm: SimLlmOptions;
}

/** Starts the simulated LLM in a new thread; resolves once it listens. */
export function startSimulatedLlmThread(options: SimLlmOptions = {}): Promise<SimulatedLlmThread> {
  const thread = new Worker(threadEntry(), { eval: true, workerData: { simulatedLlm: options } satisfies ThreadData });
  return new Promise((resolve, reject) => {
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the simulated LLM's thread exited (${code}) before it listened`)));
    thread.once('message', ({ baseURL }: { baseURL: string }) => {
      thread.removeAllListeners();
      resolve({
        baseURL,
        close: async () => {
          const exited = new Promise<void>((done) => thread.once('exit', () => done()));
          thread.postMessage('close');
          await exited;
        },
      });
    });
  });
}

/**
 * The thread's first line: it imports this module. Run from TypeScript sources (tsx, in development
 * and tests), it first registers tsx in the thread: on Node 20 a thread does not inherit the
 * module hooks of the thread that starts it.
 */
function threadEntry(): string {
  const self = JSON.stringify(import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return `import(${self})`;
  return `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${self}); })`;
}

async function serveInThisThread({ simulatedLlm }: ThreadData): Promise<void> {
  const sim = await startSimulatedLlm(simulatedLlm);
  parentPort!.once('message', () => {
    void sim.close().then(() => parentPort!.close());
  });
  parentPort!.postMessage({ baseURL: sim.baseURL });
}

if (!isMainThread && (workerData as Partial<ThreadData> | null)?.simulatedLlm) {
  void serveInThisThread(workerData as ThreadData);
}
