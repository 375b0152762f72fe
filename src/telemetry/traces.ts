import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, hrTimeToMilliseconds } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin, OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { TracesSetting } from '../../worker/config';
import { traceCalls } from './call-spans';

/**
 * Traces of runs (decision 54): the SDK's OpenTelemetry interceptors give the client's start of a
 * run, the workflow, each activity its span, carried across processes in Temporal's headers; each
 * LLM call adds a span of its own (`activities/observe.ts`, through `call-spans.ts`). Loaded only
 * when `GOT_OTEL_TRACES` is set: a process without traces never loads OpenTelemetry.
 */
export interface Tracing {
  /** For a worker: the activity and workflow interceptors and the sink workflow spans leave the sandbox by. */
  readonly workerPlugin: OpenTelemetryPlugin;
  /** For a client: starting a run opens the trace its workflow continues. */
  readonly clientInterceptor: OpenTelemetryWorkflowClientInterceptor;
  /** Sends the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Registers this process's tracer provider (the first call wins; later calls share it) and the
 * async context that makes an LLM call's span a child of its activity's. `service` names the
 * process in the traces unless `OTEL_SERVICE_NAME` does.
 */
export function startTracing(setting: TracesSetting, service: string): Tracing {
  started ??= register(setting, service);
  return started;
}

let started: Tracing | undefined;

function register(setting: TracesSetting, service: string): Tracing {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name.
  const resource = Resource.default()
    .merge(new Resource({ 'service.name': service }))
    .merge(envDetectorSync.detect());
  // The exporter reads OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT itself, as every OpenTelemetry SDK does.
  const exporter = setting === 'otlp' ? new OTLPTraceExporter() : new StderrSpanExporter();
  const spanProcessor = new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  // Each LLM call's span opens inside the span active there: its activity's, carried by the async context.
  const tracer = provider.getTracer('durable-got');
  traceCalls({
    start(name, attributes) {
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
      return {
        end(more, error) {
          span.setAttributes(more);
          if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
          span.end();
        },
      };
    },
  });
  return {
    workerPlugin: new OpenTelemetryPlugin({ resource, spanProcessor }),
    clientInterceptor: new OpenTelemetryWorkflowClientInterceptor(),
    shutdown: () => provider.shutdown(),
  };
}

/** `GOT_OTEL_TRACES=console`: one JSON line per span on stderr (stdout stays the commands' own). */
class StderrSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: { code: ExportResultCode }) => void): void {
    for (const span of spans) {
      const { traceId, spanId } = span.spanContext();
      const line = {
        name: span.name,
        traceId,
        spanId,
        ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
        ms: Math.round(hrTimeToMilliseconds(span.duration) * 10) / 10,
        ...(span.status.code === SpanStatusCode.ERROR ? { error: span.status.message ?? true } : {}),
        attributes: span.attributes,
      };
      process.stderr.write(`span ${JSON.stringify(line)}\n`);
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}
}
