import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import { renderGrs } from '../cli/commands/inspect';
import { forkRun } from '../client/fork';
import { sendDecisions } from '../client/review';
import { SteerRefusedError, steerRun } from '../client/steer';
import { ForkInstruction } from '../fork/types';
import { ValidationError, zodIssues } from '../goo/validate';
import { ReviewDecisions } from '../run/request';
import { SteerRequest } from '../steering/types';
import { getTask } from '../tasks/registry';
import { HttpError, readBody, sameSecret } from '../util/http';
import { workspacePage } from './page';
import { currentGrs, workspaceState } from './state';

/**
 * The review workspace (issue 41, decision 101): a page in the reviewer's browser for one run,
 * served by the CLI on 127.0.0.1 only, behind a random token in its URL (as Jupyter does), so nothing
 * else on the machine or the network can read the merge or decide for the reviewer. The page reads
 * the run's state every second and sends decisions and steers as the run's own updates.
 */

/** Request bodies above this are refused: a decision list of 10,000 rows fits well within it. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface ReviewWorkspace {
  /** The page's address, token included: the only way in. */
  url: string;
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
    throw new HttpError(415, 'send JSON (content-type: application/json)');
  const raw = await readBody(req, MAX_BODY_BYTES);
  try {
    return JSON.parse(raw);
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
}

/** The body checked by the contract's schema; the first offending field named in the 400. */
function parsed<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = zodIssues(result.error);
  throw new HttpError(400, `${issue!.path || '(body)'}: ${issue!.message}`);
}

/** A reviewer's redo of one part with instructions (`POST /api/redo`): a fork of the finished run. */
export const RedoRequest = z.strictObject({
  part: z
    .string()
    .max(200)
    .regex(/^[^\s[\]]+\[\d+\]$/, 'expected a part of a forEach, like merge[3]'),
  instructions: ForkInstruction.shape.text,
});

export interface WorkspaceOptions {
  client: Client;
  workflowId: string;
  port?: number;
  /** Called with a redo's task queue before its fork starts, so something serves it (the CLI starts a worker there). */
  serve?: (taskQueue: string) => Promise<void>;
}

/** A page of the workspace: only its own nonce'd scripts run; it talks to this server only; the token stays here. */
function page(res: ServerResponse, html: (nonce: string) => string): void {
  const nonce = randomBytes(16).toString('base64');
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  });
  res.end(html(nonce));
}

/**
 * Serves the workspace of one run until `close`; `port` 0 (the default) takes a free one. A redo forks
 * the run and the workspace follows the fork from then on (the page shows whose fork it is).
 */
export async function startReviewWorkspace(o: WorkspaceOptions): Promise<ReviewWorkspace> {
  const token = randomBytes(24).toString('base64url');
  let handle = o.client.workflow.getHandle(o.workflowId);
  let origin = '';

  const authorized = (url: URL) => sameSecret(url.searchParams.get('token'), token);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A page of another site resolving its own name to 127.0.0.1 (DNS rebinding) sends its own Host.
    if (req.headers.host !== new URL(origin).host) throw new HttpError(403, 'wrong host');
    const url = new URL(req.url ?? '/', origin);
    if (!authorized(url)) throw new HttpError(403, 'this page needs the token of its URL (the one `got review --web` printed)');
    const at = `${req.method} ${url.pathname}`;
    if (at === 'GET /') page(res, (nonce) => workspacePage(o.workflowId, nonce));
    else if (at === 'GET /graph') {
      // The run's graph and every thought's content: the GRS page `got inspect --format html` writes.
      const grs = await currentGrs(handle);
      if (!grs) throw new HttpError(409, 'the run has no graph to show (it failed or was cancelled before it ran)');
      const html = renderGrs(grs, 'html', handle.workflowId, getTask(grs.task));
      page(res, (nonce) => html.replaceAll('<script', `<script nonce="${nonce}"`));
    } else if (at === 'GET /api/state') json(res, 200, await workspaceState(handle));
    else if (at === 'POST /api/decide') {
      const decisions = parsed(ReviewDecisions, await bodyOf(req));
      try {
        json(res, 200, await sendDecisions(handle, decisions));
      } catch (error) {
        if (error instanceof WorkflowUpdateFailedError) throw new HttpError(409, error.cause?.message ?? error.message);
        throw error;
      }
    } else if (at === 'POST /api/steer') {
      const steer = parsed(SteerRequest, await bodyOf(req));
      try {
        json(res, 200, await steerRun(handle, steer));
      } catch (error) {
        if (error instanceof SteerRefusedError) throw new HttpError(409, error.message);
        throw error;
      }
    } else if (at === 'POST /api/redo') {
      const redo = parsed(RedoRequest, await bodyOf(req));
      const described = await handle.describe();
      if (described.status.name !== 'COMPLETED')
        throw new HttpError(409, 'a part is redone from a finished run: decide its disagreements (or keep the merge) first');
      await o.serve?.(described.taskQueue);
      try {
        const fork = await forkRun(o.client, handle.workflowId, {
          instructions: [{ operation: redo.part, text: redo.instructions }],
          by: 'web review',
          reason: `redo ${redo.part}`,
        });
        handle = o.client.workflow.getHandle(fork.workflowId);
        json(res, 200, { workflowId: fork.workflowId });
      } catch (error) {
        if (error instanceof ValidationError) throw new HttpError(400, error.message);
        throw error;
      }
    } else throw new HttpError(404, `no ${at} here`);
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (!res.headersSent) json(res, status, { error: (error as Error).message });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/?token=${token}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
