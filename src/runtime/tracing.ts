/**
 * The part of OpenTelemetry the runtime uses, declared here rather than imported: the app hands in a
 * tracer from its own `@opentelemetry/api` (`trace.getTracer('my-app')`), so spans always reach the SDK
 * the app registered, whatever api version toolgen was built against (a second copy of the api would
 * see no SDK and drop every span silently). toolgen itself never loads the api.
 */

/** An attribute value, as OpenTelemetry accepts one. */
export type TraceAttributeValue = string | number | boolean;
export type TraceAttributes = Record<string, TraceAttributeValue | undefined>;

/** What the runtime calls on a span: OpenTelemetry's `Span` is one. */
export interface TraceSpan {
  setAttribute(key: string, value: TraceAttributeValue): unknown;
  /** `code` 2 is OpenTelemetry's `SpanStatusCode.ERROR`. */
  setStatus(status: { code: number; message?: string }): unknown;
  addEvent(name: string, attributes?: TraceAttributes): unknown;
  isRecording(): boolean;
  end(): void;
}

/**
 * OpenTelemetry's `Context`, structurally. The runtime makes its own to name a span's parent
 * explicitly, so no context manager is needed.
 */
export interface TraceContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): TraceContext;
  deleteValue(key: symbol): TraceContext;
}

/** What the runtime needs of a tracer: OpenTelemetry's `Tracer` is one. */
export interface Tracer {
  startSpan(name: string, options?: { kind?: number; attributes?: TraceAttributes }, context?: TraceContext): TraceSpan;
}

/** The executor's tracing settings: the app's tracer, and whether tool arguments and results go on spans. */
export interface Tracing {
  readonly tracer: Tracer;
  readonly content: boolean;
}

/** The key every version of `@opentelemetry/api` keeps the current span under (`createContextKey` is `Symbol.for`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * A context holding one span: the parent of the spans started with it. Immutable, as OpenTelemetry's
 * contexts are; other values an SDK sets on it are kept.
 */
export class SpanParent implements TraceContext {
  constructor(
    readonly span: TraceSpan,
    readonly values: ReadonlyMap<symbol, unknown> = new Map(),
  ) {}

  getValue(key: symbol): unknown {
    return key === SPAN_KEY ? this.span : this.values.get(key);
  }

  setValue(key: symbol, value: unknown): TraceContext {
    if (key === SPAN_KEY) return new SpanParent(value as TraceSpan, this.values);
    return new SpanParent(this.span, new Map(this.values).set(key, value));
  }

  deleteValue(key: symbol): TraceContext {
    const values = new Map(this.values);
    values.delete(key);
    return key === SPAN_KEY ? new ValuesOnly(values) : new SpanParent(this.span, values);
  }
}

/** A context whose span was removed (an SDK asked for a root span). */
class ValuesOnly implements TraceContext {
  constructor(readonly values: ReadonlyMap<symbol, unknown>) {}

  getValue(key: symbol): unknown {
    return this.values.get(key);
  }

  setValue(key: symbol, value: unknown): TraceContext {
    return key === SPAN_KEY
      ? new SpanParent(value as TraceSpan, this.values)
      : new ValuesOnly(new Map(this.values).set(key, value));
  }

  deleteValue(key: symbol): TraceContext {
    const values = new Map(this.values);
    values.delete(key);
    return new ValuesOnly(values);
  }
}

/**
 * The parent the runtime hands down below a span that does not record (no SDK registered, or sampled
 * out): nothing under it gets a span either. With OpenTelemetry's samplers a child of an unsampled
 * span is never sampled, so nothing is lost, and an api with no SDK costs one span per call tree.
 */
export const UNRECORDED: TraceContext = new ValuesOnly(new Map());

/** OpenTelemetry's `SpanKind.INTERNAL`, `SpanKind.CLIENT` and `SpanStatusCode.ERROR`. */
export const SPAN_KIND_INTERNAL = 0;
export const SPAN_KIND_CLIENT = 2;
export const STATUS_ERROR = 2;
