import type { MetricMeter } from '@temporalio/common';
import type { Usage } from '../src/grs/types';
import type { LlmFault } from '../src/llm/errors';
import { type CallSpan, callSpans } from '../src/telemetry/call-spans';
import { type CallOutcome, type FaultKindLabel, METRIC, MICRODOLLARS_PER_USD } from '../src/telemetry/metrics';

/** What an LLM call is for, as its metrics and its span name it (the model as the run asked for it). */
export interface CallLabels {
  task: string;
  model: string;
  purpose: string;
}

/** What an answered call cost. */
export interface CallUsage {
  usage: Usage;
  costUsd: number;
  latencyMs: number;
  /** The model the endpoint says answered. */
  answeredBy: string;
}

/**
 * One LLM call attempt as an operator sees it: counted in the worker's metrics where the call is
 * really made (decision 53), and a span of its own in the run's trace, a child of the activity's
 * (decision 54). A cached answer is counted as `cached` and adds no tokens or cost: nothing was paid.
 */
export class CallObservation {
  /** Only when this process traces (`GOT_OTEL_TRACES`). */
  private readonly span: CallSpan | undefined;

  constructor(
    private readonly meter: MetricMeter,
    private readonly labels: CallLabels,
    o: { attempt: number; samples: number },
  ) {
    this.span = callSpans()?.start(`chat ${labels.model}`, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': labels.model,
      'got.task': labels.task,
      'got.purpose': labels.purpose,
      'got.samples': o.samples,
      'got.attempt': o.attempt,
    });
  }

  /** Attempts before this one that ended without a word (a timeout, a lost worker): one fault each. */
  lostBefore(count: number): void {
    if (count > 0) this.fault('lost', count);
  }

  /** A request of the call was refused and is sent again within it (decision 90): a fault, not a failed attempt. */
  refused(kind: LlmFault['kind']): void {
    this.fault(kind);
  }

  /** The endpoint answered: a paid call. */
  answered({ usage, costUsd, latencyMs, answeredBy }: CallUsage): void {
    const { task, model, purpose } = this.labels;
    this.count('answered');
    const tokens = this.meter.createCounter(METRIC.llmTokens.name, 'tokens', METRIC.llmTokens.help);
    tokens.add(usage.promptTokens, { task, model, purpose, type: 'prompt' });
    tokens.add(usage.completionTokens, { task, model, purpose, type: 'completion' });
    const micro = wholeMicrodollars(`${task}\n${model}\n${purpose}`, costUsd);
    if (micro > 0) this.meter.createCounter(METRIC.llmCost.name, 'microdollars', METRIC.llmCost.help).add(micro, { task, model, purpose });
    this.meter
      .createHistogram(METRIC.llmCallDuration.name, 'float', 's', METRIC.llmCallDuration.help)
      .record(latencyMs / 1000, { task, model, purpose });
    this.end(
      {
        'got.outcome': 'answered',
        'gen_ai.response.model': answeredBy,
        'gen_ai.usage.input_tokens': usage.promptTokens,
        'gen_ai.usage.output_tokens': usage.completionTokens,
        'got.cost_usd': costUsd,
      },
      undefined,
    );
  }

  /** Answered from the response cache: not a paid call. */
  cached(): void {
    this.count('cached');
    this.end({ 'got.outcome': 'cached' }, undefined);
  }

  /** The attempt failed with a classified fault. */
  failed(fault: Pick<LlmFault, 'kind' | 'message'>): void {
    this.count('failed');
    this.fault(fault.kind);
    this.end({ 'got.outcome': 'failed', 'error.type': fault.kind }, fault.message);
  }

  /**
   * The attempt was stopped in flight: by a cancel (the run's, or its call's), counted as `cancelled`;
   * or because it timed out or its worker shut down, which the attempt after it counts as `lost`.
   */
  stopped(cancelRequested: boolean): void {
    if (cancelRequested) this.count('cancelled');
    this.end({ 'got.outcome': cancelRequested ? 'cancelled' : 'abandoned' }, undefined);
  }

  private count(outcome: CallOutcome): void {
    const { task, model, purpose } = this.labels;
    this.meter.createCounter(METRIC.llmCalls.name, 'calls', METRIC.llmCalls.help).add(1, { task, model, purpose, outcome });
  }

  private fault(kind: FaultKindLabel, count = 1): void {
    const { task, model } = this.labels;
    this.meter.createCounter(METRIC.llmFaults.name, 'attempts', METRIC.llmFaults.help).add(count, { task, model, kind });
  }

  private end(attributes: Record<string, string | number>, error: string | undefined): void {
    this.span?.end(attributes, error);
  }
}

/**
 * Counters are integers in the SDK's core, so the cost is counted in whole millionths of a dollar;
 * what a call leaves below one is carried to the next call of the same labels, so a series' total
 * stays within one millionth of what was paid.
 */
const carried = new Map<string, number>();
function wholeMicrodollars(key: string, costUsd: number): number {
  const exact = costUsd * MICRODOLLARS_PER_USD + (carried.get(key) ?? 0);
  const whole = Math.floor(exact);
  carried.set(key, exact - whole);
  return whole;
}
