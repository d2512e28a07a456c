import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ClientNats, NatsOptions, NatsRecordBuilder, ServerNats } from '@nestjs/microservices';
import { headers as natsHeaders } from 'nats';
import { RpcProblem, RpcReply, RpcRequest, RpcResult, RpcSubject } from '@app/contracts';
import { firstValueFrom, timeout as rxTimeout } from 'rxjs';
import { natsAuth, RECONNECT_FOREVER, withOwnInbox } from './nats-connection';
import { MESSAGING_OPTIONS, MessagingModuleOptions } from './options';
import { contextFrom, inSpan, SpanKind, traceHeaders, tracingEnabled } from './tracing';

type NatsTransportOptions = NatsOptions['options'];

/** Subjects live under the topology prefix, so suites sharing a NATS server never answer each other. */
const underPrefix = (prefix: string, subject: string): string => (prefix ? `${prefix}.${subject}` : subject);

/**
 * The @nestjs/microservices NATS server, subscribing each @MessagePattern under the topology prefix.
 * It answers through `allow_responses` and asks nothing itself, but connects with its user's own
 * inbox all the same, like every client of the service.
 */
export class PrefixedServerNats extends ServerNats {
  constructor(
    options: NatsTransportOptions,
    private readonly prefix: string,
  ) {
    super(withOwnInbox(options ?? {}, prefix));
  }

  // Handlers are stored (and so subscribed and looked up) by their prefixed subject.
  override addHandler(...[pattern, ...rest]: Parameters<ServerNats['addHandler']>): void {
    super.addHandler(underPrefix(this.prefix, this.normalizePattern(pattern)), ...rest);
  }

  /** Tracing on: each call is a server span, the child of the caller's `traceparent` header. */
  override handleMessage(...[channel, msg]: Parameters<ServerNats['handleMessage']>): Promise<unknown> {
    if (!tracingEnabled()) return super.handleMessage(channel, msg);
    const attributes = { 'rpc.system': 'nats', 'rpc.method': channel };
    return inSpan(channel, { kind: SpanKind.SERVER, parent: contextFrom(msg.headers), attributes }, () =>
      super.handleMessage(channel, msg),
    );
  }
}

/**
 * The matching client: patterns it sends are put under the same prefix, and the answers come back
 * to its user's own inbox (the transport makes each reply subject from `inboxPrefix`).
 */
class PrefixedClientNats extends ClientNats {
  private readonly prefix: string;

  constructor(options: NatsTransportOptions & { prefix?: string }) {
    super(withOwnInbox(options ?? {}, options?.prefix ?? ''));
    this.prefix = options?.prefix ?? '';
  }

  protected override normalizePattern(pattern: unknown): string {
    return underPrefix(this.prefix, super.normalizePattern(pattern as string));
  }
}

/**
 * A request/reply call that did not produce a result, as the problem the caller should answer:
 * the responder's own refusal (its status), nobody answering or a timeout (503), or the responder
 * failing unexpectedly (502). The HTTP layer turns it into problem+json.
 */
export class RpcProblemError extends Error {
  constructor(
    readonly subject: string,
    readonly problem: RpcProblem,
    /** Nobody subscribes to the subject at all (not merely slow to answer): an older responder, say. */
    readonly noResponders = false,
  ) {
    super(`${subject}: ${problem.detail ?? problem.title}`);
    this.name = 'RpcProblemError';
  }
}

/** Seconds a caller is told to wait before retrying a call that found nobody answering. */
export const RPC_RETRY_AFTER_SECONDS = 5;

const NOT_ANSWERED: Omit<RpcProblem, 'detail'> = {
  status: 503,
  slug: 'service-unavailable',
  title: 'Service unavailable',
};
const FAILED: Omit<RpcProblem, 'detail'> = { status: 502, slug: 'bad-gateway', title: 'Bad gateway' };

/**
 * Nobody answered: a timeout, no responders, or the transport's "no subscribers listening" reply
 * (which the NATS transport hands back as if the remote side had failed).
 */
function isNotAnswered(err: unknown): boolean {
  const e = (err ?? {}) as { name?: unknown; message?: unknown; type?: unknown };
  const name = typeof e.name === 'string' ? e.name : '';
  const message = typeof e.message === 'string' ? e.message : typeof err === 'string' ? err : '';
  return (
    name === 'TimeoutError' ||
    name === 'NatsError' ||
    e.type === 'EmptyResponseException' ||
    /no responders|no subscribers listening|no matching message handler|503|timeout|CONNECTION_REFUSED|ECONNREFUSED/i.test(
      message,
    )
  );
}

/** NATS answered at once that nobody subscribes to the subject. */
function isNoResponders(err: unknown): boolean {
  const e = (err ?? {}) as { message?: unknown; type?: unknown };
  const message = typeof e.message === 'string' ? e.message : typeof err === 'string' ? err : '';
  return e.type === 'EmptyResponseException' || /no responders|no subscribers listening/i.test(message);
}

/** The responder of `subject` failed unexpectedly, or answered nothing usable: a 502 problem. */
export function failedProblem(subject: string, what: 'failed' | 'replied without a result'): RpcProblem {
  return { ...FAILED, detail: `The service answering ${subject} ${what}.` };
}

/** The problem a failed call stands for (see RpcProblemError). */
function problemOfFailedCall(subject: string, err: unknown): RpcProblem {
  return isNotAnswered(err)
    ? { ...NOT_ANSWERED, detail: `No service answered ${subject} in time; nothing was changed. Retry later.` }
    : failedProblem(subject, 'failed');
}

export interface RpcCallOptions {
  /** How long to wait for the answer; past it the call is a 503 problem. */
  timeoutMs?: number;
  /** The `detail` to give when nobody answers, in the caller's words. */
  unavailable?: string;
}

/**
 * The one way to call another service: typed by subject (RpcMethods), over the @nestjs/microservices
 * NATS transport. Resolves with the responder's result, or rejects with an RpcProblemError.
 */
@Injectable()
export class RpcClient implements OnApplicationShutdown {
  private readonly proxy: PrefixedClientNats;

  constructor(@Inject(MESSAGING_OPTIONS) opts: MessagingModuleOptions) {
    this.proxy = new PrefixedClientNats({
      ...natsAuth(),
      ...RECONNECT_FOREVER,
      servers: opts.url.split(','),
      prefix: opts.prefix,
      name: `${opts.name}-rpc`,
    });
  }

  async call<S extends RpcSubject>(
    subject: S,
    request: RpcRequest<S>,
    opts: RpcCallOptions = {},
  ): Promise<RpcResult<S>> {
    let reply: RpcReply<RpcResult<S>>;
    try {
      reply = await firstValueFrom(
        this.proxy
          .send<RpcReply<RpcResult<S>>>(subject, withTraceparent(request))
          .pipe(rxTimeout(opts.timeoutMs ?? 5000)),
      );
    } catch (err) {
      const problem = problemOfFailedCall(subject, err);
      throw new RpcProblemError(
        subject,
        problem.status === 503 && opts.unavailable ? { ...problem, detail: opts.unavailable } : problem,
        isNoResponders(err),
      );
    }
    if (reply?.problem) throw new RpcProblemError(subject, reply.problem);
    if (!reply || !('result' in reply)) {
      throw new RpcProblemError(subject, failedProblem(subject, 'replied without a result'));
    }
    return reply.result as RpcResult<S>;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.proxy.close();
  }
}

/** The request as it is sent: with the active span's `traceparent` header while tracing is on. */
function withTraceparent<T>(request: T): unknown {
  const trace = traceHeaders();
  if (!trace.traceparent) return request;
  const h = natsHeaders();
  for (const [k, v] of Object.entries(trace)) h.set(k, v);
  return new NatsRecordBuilder(request).setHeaders(h).build();
}

/**
 * What a responder answers: the handler's result, or the problem `refusal` finds in what it threw.
 * Anything `refusal` does not recognise is thrown on, so the caller sees the responder fail (502).
 */
export async function rpcAnswer<T>(
  work: () => Promise<T> | T,
  refusal: (err: unknown) => RpcProblem | undefined,
): Promise<RpcReply<T>> {
  try {
    return { result: await work() };
  } catch (err) {
    const problem = refusal(err);
    if (problem) return { problem };
    throw err;
  }
}
