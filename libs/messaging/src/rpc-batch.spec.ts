import { GATEWAY_MESSAGES_RPC, GatewaySendRequest, RpcBatchRequest, RpcProblem } from '@app/contracts';
import { BatchedRpc, rpcAnswerEach } from './rpc-batch';
import { RpcClient, RpcProblemError } from './rpc';

const send = (to: string, params: string[] = []): GatewaySendRequest => ({
  account_id: 'acc',
  user_id: 'user',
  channel: 'whatsapp',
  to,
  template_app_id: 1,
  template: 'order_ready',
  params,
});

const refused: RpcProblem = { status: 422, slug: 'recipient-opted-out', title: 'Recipient opted out' };

/** An RpcClient whose batch calls answer as `answer` says, recording the recipients of each batch. */
function fakeRpc(answer: (items: GatewaySendRequest[]) => Promise<unknown>) {
  const batches: string[][] = [];
  const rpc = {
    call: (_subject: string, request: RpcBatchRequest<GatewaySendRequest>) => {
      batches.push(request.items.map((i) => i.to));
      return answer(request.items);
    },
  } as unknown as RpcClient;
  return { rpc, batches };
}

/** Each send accepted with its recipient as id, but 4470000002's refused. */
const eachAnswered = (items: GatewaySendRequest[]) =>
  Promise.resolve({
    answers: items.map((i) =>
      i.to === '4470000002' ? { problem: refused } : { result: { id: `m-${i.to}`, status: 'QUEUED', replayed: false } },
    ),
  });

describe('BatchedRpc', () => {
  it('sends the calls of one turn in one request, and gives each caller its own answer or problem', async () => {
    const { rpc, batches } = fakeRpc(eachAnswered);
    const sends = new BatchedRpc(rpc, GATEWAY_MESSAGES_RPC.sendBatch);
    const calls = ['4470000001', '4470000002', '4470000003'].map((to) =>
      sends.call(send(to)).then(
        (r) => r.id,
        (err: unknown) => err,
      ),
    );
    const [first, second, third] = await Promise.all(calls);
    expect(batches).toEqual([['4470000001', '4470000002', '4470000003']]);
    expect(first).toBe('m-4470000001');
    expect(third).toBe('m-4470000003');
    expect(second).toBeInstanceOf(RpcProblemError);
    expect((second as RpcProblemError).problem).toEqual(refused);
  });

  it('sends each call alone on the single subject when nobody subscribes to the batch subject', async () => {
    const subjects: string[] = [];
    const rpc = {
      call: (subject: string, request: GatewaySendRequest) => {
        subjects.push(subject);
        if (subject === GATEWAY_MESSAGES_RPC.sendBatch) {
          const problem: RpcProblem = { status: 503, slug: 'service-unavailable', title: 'Service unavailable' };
          return Promise.reject(new RpcProblemError(subject, problem, true));
        }
        return Promise.resolve({ id: `m-${request.to}`, status: 'QUEUED', replayed: false });
      },
    } as unknown as RpcClient;
    const sends = new BatchedRpc(rpc, GATEWAY_MESSAGES_RPC.sendBatch, { single: GATEWAY_MESSAGES_RPC.send });
    const ids = await Promise.all(['4470000001', '4470000002'].map((to) => sends.call(send(to)).then((r) => r.id)));
    expect(ids).toEqual(['m-4470000001', 'm-4470000002']);
    expect(subjects).toEqual([GATEWAY_MESSAGES_RPC.sendBatch, GATEWAY_MESSAGES_RPC.send, GATEWAY_MESSAGES_RPC.send]);
  });

  it('starts another request once a batch is full, by count or by size', async () => {
    const { rpc, batches } = fakeRpc(eachAnswered);
    const byCount = new BatchedRpc(rpc, GATEWAY_MESSAGES_RPC.sendBatch, { maxItems: 2 });
    await Promise.all(['4470000001', '4470000003', '4470000004'].map((to) => byCount.call(send(to))));
    expect(batches).toEqual([['4470000001', '4470000003'], ['4470000004']]);

    batches.length = 0;
    const bySize = new BatchedRpc(rpc, GATEWAY_MESSAGES_RPC.sendBatch, { maxBytes: 2_000 });
    const big = ['x'.repeat(1_500)];
    await Promise.all(['4470000001', '4470000003'].map((to) => bySize.call(send(to, big))));
    expect(batches).toEqual([['4470000001'], ['4470000003']]);
  });

  it('gives every caller of a batch nobody answered the same problem', async () => {
    const unavailable = new RpcProblemError(GATEWAY_MESSAGES_RPC.sendBatch, {
      status: 503,
      slug: 'service-unavailable',
      title: 'Service unavailable',
    });
    const { rpc } = fakeRpc(() => Promise.reject(unavailable));
    const sends = new BatchedRpc(rpc, GATEWAY_MESSAGES_RPC.sendBatch);
    const results = await Promise.allSettled(['4470000001', '4470000003'].map((to) => sends.call(send(to))));
    expect(results.map((r) => (r.status === 'rejected' ? r.reason : r.value))).toEqual([unavailable, unavailable]);
  });

  it('answers a caller whose item got no answer with a 502 problem', async () => {
    const { rpc } = fakeRpc(() => Promise.resolve({ answers: [] }));
    const sends = new BatchedRpc(rpc, GATEWAY_MESSAGES_RPC.sendBatch);
    const err = (await sends.call(send('4470000001')).catch((e: unknown) => e)) as RpcProblemError;
    expect(err.problem.status).toBe(502);
  });
});

describe('rpcAnswerEach', () => {
  class Refusal extends Error {}
  const refusal = (err: unknown) => (err instanceof Refusal ? refused : undefined);

  it('answers each item with its result, its refusal, or a 502 when it failed unexpectedly', async () => {
    const answer = await rpcAnswerEach(
      GATEWAY_MESSAGES_RPC.send,
      { items: [1, 2, 3] },
      (n: number) => {
        if (n === 2) return Promise.reject(new Refusal());
        if (n === 3) return Promise.reject(new Error('boom'));
        return Promise.resolve(n * 10);
      },
      refusal,
    );
    expect(answer.answers[0]).toEqual({ result: 10 });
    expect(answer.answers[1]).toEqual({ problem: refused });
    expect(answer.answers[2].problem).toMatchObject({ status: 502, slug: 'bad-gateway' });
    expect(answer.answers[2].problem?.detail).toContain(GATEWAY_MESSAGES_RPC.send);
  });

  it('refuses a request without a list of items', async () => {
    await expect(
      rpcAnswerEach('s', {} as RpcBatchRequest<number>, (n: number) => Promise.resolve(n), refusal),
    ).rejects.toThrow(TypeError);
  });
});
