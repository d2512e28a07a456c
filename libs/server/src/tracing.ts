import { context, propagation, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { enableTracing, tracingEnabled } from '@app/messaging';

/**
 * Tracing is on when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_ENDPOINT`), unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 * Off, no SDK is loaded and every span helper is a no-op.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return false;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  return (env.OTEL_TRACES_EXPORTER ?? 'otlp').trim().toLowerCase() !== 'none';
}

let provider: { forceFlush(): Promise<void> } | undefined;

/**
 * Starts the OpenTelemetry SDK once per process when the environment asks for it: spans are
 * batched and exported over OTLP/HTTP (JSON) to the configured endpoint, as service
 * `OTEL_SERVICE_NAME` (default: `serviceName`), with W3C trace-context propagation.
 */
export async function startTracing(serviceName: string): Promise<void> {
  if (tracingEnabled() || !tracingRequested()) return;
  const [{ TracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }, core, als] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/core'),
      import('@opentelemetry/context-async-hooks'),
    ]);
  const delay = Number(process.env.OTEL_BSP_SCHEDULE_DELAY);
  const p = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || serviceName }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        ...(Number.isFinite(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {}),
      }),
    ],
  });
  context.setGlobalContextManager(new als.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(p);
  provider = p;
  enableTracing();
}

/** Exports the spans still buffered (at shutdown). */
export async function flushTraces(): Promise<void> {
  await provider?.forceFlush().catch(() => undefined);
}

const serverSpans = new WeakMap<FastifyRequest, Span>();

/**
 * One server span per HTTP request (HTTP semantic conventions: method, route template, status;
 * never the URL's query or any body), the child of an incoming `traceparent`, active while the
 * handler runs, so what it publishes carries it. Registers nothing while tracing is off.
 */
export function traceHttpRequests(fastify: FastifyInstance): void {
  if (!tracingEnabled()) return;
  const tracer = trace.getTracer('messaging-platform');
  fastify.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer.startSpan(
      request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.scheme': request.protocol,
          'network.protocol.name': 'http',
        },
      },
      parent,
    );
    serverSpans.set(request, span);
    done();
  });
  fastify.addHook('preHandler', (request, _reply, done) => {
    const span = serverSpans.get(request);
    if (!span) return done();
    const route = request.routeOptions?.url;
    if (route) span.updateName(`${request.method} ${route}`).setAttribute('http.route', route);
    // The handler (and what it awaits) runs inside this call, so it sees the span as active.
    context.with(trace.setSpan(context.active(), span), done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = serverSpans.get(request);
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      serverSpans.delete(request);
    }
    done();
  });
  fastify.addHook('onClose', (_instance, done) => void flushTraces().then(() => done()));
}
