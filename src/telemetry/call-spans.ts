/**
 * Where an LLM call's span comes from, when traces are on: `traces.ts` installs the real thing,
 * `activities/observe.ts` asks for it. Nothing of OpenTelemetry is loaded through here, so a worker
 * or a `got run` without traces never loads it (decision 54).
 */

/** One LLM call's span, open until it is ended with what the call came to. */
export interface CallSpan {
  end(attributes: Record<string, string | number>, error?: string): void;
}

/** Opens call spans, each a child of the span active where it is opened (the activity's). */
export interface CallSpans {
  start(name: string, attributes: Record<string, string | number>): CallSpan;
}

let installed: CallSpans | undefined;

/** Makes every later LLM call of this process open a span here. */
export function traceCalls(spans: CallSpans): void {
  installed = spans;
}

/** Where LLM calls open their spans; undefined when this process does not trace. */
export function callSpans(): CallSpans | undefined {
  return installed;
}
