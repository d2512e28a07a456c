import { ChannelConnector, MediaUploader, SendResult } from '@app/channels';
import { MEDIA_RPC, OutboundMessage, Topology } from '@app/contracts';
import { NatsClients, RpcClient } from '@app/messaging';
import { LibraryMediaConnector } from './library-media.connector';

const MEDIA_ID = '01970000-0000-7000-8000-0000000000aa';

const message = (i: number) =>
  ({
    id: `m${i}`,
    user_id: 'u1',
    channel: 'telegram',
    to: String(1000 + i),
    sender: { connection_id: 'bot-1' },
    content: { image: { media_id: MEDIA_ID, caption: 'Hi' } },
  }) as unknown as OutboundMessage;

/** A channel that sends anything by handle, and the handles its sends carried. */
function channel() {
  const handles: string[] = [];
  const inner = {
    channel: 'telegram',
    pacing: {},
    sendTimeoutMs: 1000,
    send: jest.fn(async (msg: OutboundMessage): Promise<SendResult> => {
      handles.push((msg.content as unknown as { image: { handle: string } }).image.handle);
      return { ok: true, providerMessageId: `p-${msg.id}` } as unknown as SendResult;
    }),
    uploadMedia: jest.fn(),
  } as unknown as ChannelConnector & MediaUploader;
  return { inner, handles };
}

const connectorOf = (inner: ChannelConnector & MediaUploader, rpc: { call: jest.Mock }) =>
  new LibraryMediaConnector(
    inner,
    rpc as unknown as RpcClient,
    {} as NatsClients,
    new Topology('t'),
    () => 1_800_000_000,
  );

describe('LibraryMediaConnector', () => {
  it("asks the gateway once for a file's handle when a campaign's first sends arrive together", async () => {
    const { inner, handles } = channel();
    const asked: ((v: unknown) => void)[] = [];
    const rpc = { call: jest.fn(() => new Promise((resolve) => asked.push(resolve))) };
    const connector = connectorOf(inner, rpc);

    const sends = Array.from({ length: 20 }, (_, i) => connector.send(message(i)));
    await new Promise((r) => setImmediate(r));
    for (const answer of asked) answer({ handle: 'file-1', expires_at: null });
    const results = await Promise.all(sends);

    expect(results.every((r) => r.ok)).toBe(true);
    expect(rpc.call).toHaveBeenCalledTimes(1);
    expect(rpc.call).toHaveBeenCalledWith(MEDIA_RPC.claim, expect.objectContaining({ media_id: MEDIA_ID }), {
      timeoutMs: 5000,
    });
    expect(handles).toEqual(Array(20).fill('file-1'));
    // Later sends use the handle remembered, without asking.
    await connector.send(message(99));
    expect(rpc.call).toHaveBeenCalledTimes(1);
  });

  it('lets the waiting sends ask in turn when the one asking found no handle', async () => {
    const { inner, handles } = channel();
    const rpc = {
      call: jest
        .fn()
        .mockRejectedValueOnce(new Error('no answer'))
        .mockResolvedValue({ handle: 'file-2', expires_at: null }),
    };
    const connector = connectorOf(inner, rpc);

    const results = await Promise.all([0, 1, 2].map((i) => connector.send(message(i))));

    // The first is retried later (the gateway did not answer); the others got the handle themselves.
    expect(results.map((r) => r.ok)).toEqual([false, true, true]);
    expect(results[0]).toMatchObject({ retryable: true, code: 'media_unavailable' });
    expect(handles).toEqual(['file-2', 'file-2']);
  });
});
