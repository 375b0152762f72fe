import { WorkflowNotFoundError } from '@temporalio/client';
import type { ProviderLimitState } from '../../../workflows/limits/definitions';
import { webUiLink } from '../../client/runs';
import { providerLimitId } from '../../limits/shared-limiter';
import { endpointFromEnv, NO_ENDPOINT } from '../../llm/endpoint';
import { PROVIDER_LIMIT } from '../../run/wire';
import { withCliClient } from '../cli-client';

/** What `got limits` reports: the endpoint's shared limit as its workflow holds it now, or that none runs. */
export interface LimitsReport {
  endpoint: string;
  workflowId: string;
  running: boolean;
  state?: ProviderLimitState;
  webUi: string;
}

/**
 * `got limits`: the provider limit the workers share for the configured endpoint and key
 * (OPENAI_BASE_URL, OPENAI_API_KEY; decision 70): its rates, calls waiting and granted, refusals.
 */
export async function limitsCommand(o: { json: boolean }, log: (line: string) => void): Promise<LimitsReport> {
  const endpoint = endpointFromEnv();
  if (!endpoint) throw new Error(`${NO_ENDPOINT} (the limit belongs to an endpoint and its key)`);
  const workflowId = providerLimitId(endpoint);
  return withCliClient(log, async ({ client, server }) => {
    const report: LimitsReport = {
      endpoint: endpoint.baseURL,
      workflowId,
      running: false,
      webUi: webUiLink(server.uiUrl, server.namespace, workflowId),
    };
    try {
      const handle = client.workflow.getHandle(workflowId);
      if ((await handle.describe()).status.name === 'RUNNING') {
        report.running = true;
        report.state = await handle.query<ProviderLimitState>(PROVIDER_LIMIT.state);
      }
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
    console.log(o.json ? JSON.stringify(report, null, 2) : formatLimits(report));
    return report;
  });
}

export function formatLimits(r: LimitsReport): string {
  if (!r.running || !r.state)
    return `No shared limit runs for ${r.endpoint} now: a worker with GOT_LLM_RPM or GOT_LLM_TPM starts it with its first call.`;
  const { limits, levels, waiting, granted, refusals, pausedUntil } = r.state;
  const rates = [
    limits.requestsPerMinute ? `${limits.requestsPerMinute} requests` : '',
    limits.tokensPerMinute ? `${limits.tokensPerMinute} tokens` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return [
    `${r.endpoint}: ${rates} a minute, held for every worker (${r.workflowId})`,
    `  available now: ${[
      limits.requestsPerMinute ? `${Math.floor(levels.requests)} requests` : '',
      limits.tokensPerMinute ? `${Math.floor(levels.tokens)} tokens` : '',
    ]
      .filter(Boolean)
      .join(', ')}`,
    `  calls waiting: ${waiting}; granted: ${granted}; refusals (429) reported: ${refusals}`,
    ...(pausedUntil && pausedUntil > Date.now() ? [`  paused by a refusal until ${new Date(pausedUntil).toISOString()}`] : []),
    `  Web UI: ${r.webUi}`,
  ].join('\n');
}
