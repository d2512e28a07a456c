import {
  Attributes,
  Link,
  context,
  Context,
  propagation,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
} from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/nats-core';

/**
 * Spans of one message's way through the platform (see docs/operations.md#tracing). Every helper
 * here is a no-op until the process turned tracing on (`enableTracing`, called by the server's
 * tracing setup once the OTEL_* variables ask for it): the hot paths then pay one boolean check.
 */
let enabled = false;

export function enableTracing(): void {
  enabled = true;
}

export function tracingEnabled(): boolean {
  return enabled;
}

const tracer = () => trace.getTracer('messaging-platform');

const mapGetter: TextMapGetter<Record<string, string | undefined>> = {
  keys: (c) => Object.keys(c),
  get: (c, k) => c[k],
};

const natsGetter: TextMapGetter<MsgHdrs> = {
  keys: (h) => h.keys(),
  get: (h, k) => h.get(k) || undefined,
};

/** The W3C `traceparent` (and `tracestate`) of `ctx`, as message headers; empty while tracing is off. */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> {
  const out: Record<string, string> = {};
  if (enabled) propagation.inject(ctx, out);
  return out;
}

/** The `traceparent` of the active span, to store beside what a later step picks up; null while off. */
export function currentTraceparent(): string | null {
  return traceHeaders().traceparent ?? null;
}

/** The context a stored `traceparent` (or message headers) names; the root context when none. */
export function contextFrom(
  carrier: MsgHdrs | Record<string, string | undefined> | string | null | undefined,
): Context {
  if (!enabled || !carrier) return ROOT_CONTEXT;
  if (typeof carrier === 'string') return propagation.extract(ROOT_CONTEXT, { traceparent: carrier }, mapGetter);
  if (typeof (carrier as MsgHdrs).keys === 'function' && typeof (carrier as MsgHdrs).get === 'function') {
    return propagation.extract(ROOT_CONTEXT, carrier as MsgHdrs, natsGetter);
  }
  return propagation.extract(ROOT_CONTEXT, carrier as Record<string, string | undefined>, mapGetter);
}

export interface SpanSpec {
  kind?: SpanKind;
  /** Semantic-convention attributes; never a phone number or message content. */
  attributes?: Attributes;
  /** The parent: the active context unless given (a message's headers, a stored traceparent). */
  parent?: Context;
  /** Spans this one follows from without being their child (the request a callback came in). */
  links?: Link[];
}

/**
 * Runs `work` inside a span (active for everything it awaits), ended when it settles; a throw marks
 * it as an error with the exception's type only (messages may quote input). While tracing is off
 * it is `work(undefined)`.
 */
export function inSpan<T>(name: string, spec: SpanSpec, work: (span?: Span) => Promise<T>): Promise<T> {
  if (!enabled) return work(undefined);
  const span = tracer().startSpan(
    name,
    { kind: spec.kind ?? SpanKind.INTERNAL, attributes: spec.attributes, links: spec.links },
    spec.parent ?? context.active(),
  );
  const ctx = trace.setSpan(spec.parent ?? context.active(), span);
  return context.with(ctx, async () => {
    try {
      return await work(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', err instanceof Error ? err.name : 'Error');
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Messaging semantic-convention attributes of a NATS JetStream operation on `subject`. */
export function messagingAttributes(operation: 'send' | 'process', subject: string, messageId?: string): Attributes {
  return {
    'messaging.system': 'nats',
    'messaging.operation.type': operation,
    'messaging.destination.name': subject,
    ...(messageId ? { 'messaging.message.id': messageId } : {}),
  };
}

export { SpanKind };
