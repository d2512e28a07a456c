import { Logger } from '@nestjs/common';
import {
  RpcBatchRequest,
  RpcBatchResult,
  RpcProblem,
  RpcReply,
  RpcRequest,
  RpcResult,
  RpcSubject,
} from '@app/contracts';
import { failedProblem, rpcAnswer, RpcCallOptions, RpcClient, RpcProblemError } from './rpc';
import { contextFrom, currentTraceparent, inSpan, SpanKind, tracingEnabled } from './tracing';

/** The subjects whose request is a batch of items (RpcBatchRequest). */
export type RpcBatchSubject = {
  [S in RpcSubject]: RpcRequest<S> extends RpcBatchRequest<unknown> ? S : never;
}[RpcSubject];
type ItemOf<S extends RpcBatchSubject> = RpcRequest<S> extends RpcBatchRequest<infer T> ? T : never;
type ItemResultOf<S extends RpcBatchSubject> = RpcResult<S> extends RpcBatchResult<infer R> ? R : never;

/** Items per batch: enough to carry every request of a busy turn, few enough to answer together soon. */
const MAX_ITEMS = 100;
/**
 * Bytes of items per batch (their JSON): half of NATS's default 1 MiB payload limit, leaving room
 * for the envelope. An item larger than this goes alone, as it would unbatched.
 */
const MAX_BYTES = 512 * 1024;

interface Waiting<T, R> {
  item: T;
  traceparent: string | null;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Calls of one request/reply method made in the same turn of the event loop, sent as one request
 * of its batch subject: one NATS message, one decode and one handler run on the responder for
 * many callers, instead of one each. A call waits at most for the rest of its own turn; several
 * batches may be in flight at once. Each caller gets its own item's result, or an RpcProblemError
 * with its own item's problem (or the batch's, when nobody answered it in time).
 */
export class BatchedRpc<S extends RpcBatchSubject> {
  private waiting: Waiting<ItemOf<S>, ItemResultOf<S>>[] = [];
  private bytes = 0;
  private scheduled = false;

  constructor(
    private readonly rpc: RpcClient,
    private readonly subject: S,
    private readonly opts: RpcCallOptions & {
      maxItems?: number;
      maxBytes?: number;
      /**
       * The subject of one item alone: when nobody subscribes to the batch subject (a responder of
       * an earlier release, during a rolling upgrade), each item goes there instead.
       */
      single?: RpcSubject;
    } = {},
  ) {}

  call(item: ItemOf<S>): Promise<ItemResultOf<S>> {
    const size = Buffer.byteLength(JSON.stringify(item));
    return new Promise((resolve, reject) => {
      const full =
        this.waiting.length >= (this.opts.maxItems ?? MAX_ITEMS) ||
        this.bytes + size > (this.opts.maxBytes ?? MAX_BYTES);
      if (this.waiting.length && full) this.flush();
      this.waiting.push({ item, traceparent: currentTraceparent(), resolve, reject });
      this.bytes += size;
      if (!this.scheduled) {
        this.scheduled = true;
        // After this turn's I/O callbacks: the requests they made join this batch.
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.bytes = 0;
    if (batch.length) void this.send(batch);
  }

  private async send(batch: Waiting<ItemOf<S>, ItemResultOf<S>>[]): Promise<void> {
    let answers: RpcReply<ItemResultOf<S>>[];
    try {
      const traced = batch.some((w) => w.traceparent);
      const request = {
        items: batch.map((w) => w.item),
        ...(traced ? { traceparents: batch.map((w) => w.traceparent) } : {}),
      } as RpcRequest<S>;
      ({ answers } = (await this.rpc.call(this.subject, request, this.opts)) as RpcBatchResult<ItemResultOf<S>>);
    } catch (err) {
      const single = this.opts.single;
      if (single && err instanceof RpcProblemError && err.noResponders) {
        for (const w of batch) {
          this.rpc
            .call(single, w.item as RpcRequest<typeof single>, this.opts)
            .then((r) => w.resolve(r as ItemResultOf<S>), w.reject);
        }
        return;
      }
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const answer = Array.isArray(answers) ? answers[i] : undefined;
      if (answer && !answer.problem && 'result' in answer) w.resolve(answer.result as ItemResultOf<S>);
      else
        w.reject(
          new RpcProblemError(this.subject, answer?.problem ?? failedProblem(this.subject, 'replied without a result')),
        );
    });
  }
}

const logger = new Logger('RpcBatch');

/** `work` in its own server span while tracing is on, as a call of `subject` made alone would be. */
function traced<R>(subject: string, traceparent: string | null | undefined, work: () => Promise<R>): Promise<R> {
  if (!tracingEnabled()) return work();
  const attributes = { 'rpc.system': 'nats', 'rpc.method': subject };
  return inSpan(subject, { kind: SpanKind.SERVER, parent: contextFrom(traceparent), attributes }, work);
}

/**
 * What a responder answers to a batch: every item handled at once by `work`, as if it came alone
 * (tracing on: in a server span named `subject`, the child of the item's own caller), each answered
 * with its result or the problem `refusal` finds in what it threw. An item that fails unexpectedly
 * is answered as a failed call (502) without failing the others.
 */
export async function rpcAnswerEach<T, R>(
  subject: string,
  request: RpcBatchRequest<T>,
  work: (item: T) => Promise<R>,
  refusal: (err: unknown) => RpcProblem | undefined,
): Promise<RpcBatchResult<R>> {
  if (!Array.isArray(request?.items)) throw new TypeError(`${subject}: items must be a list`);
  return {
    answers: await Promise.all(
      request.items.map((item, i) =>
        rpcAnswer(() => traced(subject, request.traceparents?.[i], () => work(item)), refusal).catch(
          (err: unknown): RpcReply<R> => {
            logger.error({ err, subject }, 'a batched request failed');
            return { problem: failedProblem(subject, 'failed') };
          },
        ),
      ),
    ),
  };
}
