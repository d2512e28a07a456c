import { GATEWAY_MESSAGES_RPC } from '@app/contracts';
import type { RpcClient } from '@app/messaging';
import type { ConnectionsRepository } from '../connections/connections.repository';
import type { ConversationRow } from './conversations.repository';
import { ServiceWindows } from './service-windows';

const row = (id: string, address: string, channel = 'whatsapp', connection = 'conn-wa'): ConversationRow =>
  ({ id, address, channel, connection_id: connection }) as ConversationRow;

function windowsWith(answer: (recipients: string[]) => Promise<unknown>, appOf: Record<string, number | null>) {
  const calls: { subject: string; recipients: string[] }[] = [];
  const rpc = {
    call: jest.fn((subject: string, body: { recipients: string[] }) => {
      calls.push({ subject, recipients: body.recipients });
      return answer(body.recipients);
    }),
  } as unknown as RpcClient;
  const findById = jest.fn((id: string) => Promise.resolve(id in appOf ? { appId: appOf[id] } : null));
  const connections = { findById } as unknown as ConnectionsRepository;
  return { windows: new ServiceWindows(rpc, connections), calls, findById };
}

describe('ServiceWindows', () => {
  it('answers pages read at the same time with one request, each conversation its own window', async () => {
    const { windows, calls, findById } = windowsWith(
      (recipients) =>
        Promise.resolve({
          windows: recipients
            .filter((r) => r !== '7003')
            .map((r) => ({ recipient: r, open: r === '7001', expires_at: r === '7001' ? 2_000 : 1_000 })),
        }),
      { 'conn-wa': 42 },
    );
    const [first, second] = await Promise.all([
      windows.of([row('a', '+7001'), row('b', '+7002'), row('t', '900', 'telegram', 'conn-tg')]),
      windows.of([row('c', '+7002'), row('d', '+7003')]),
    ]);
    expect(calls).toEqual([{ subject: GATEWAY_MESSAGES_RPC.windows, recipients: ['7001', '7002', '7003'] }]);
    expect(first).toEqual(
      new Map([
        ['a', { open: true, expires_at: 2_000 }],
        ['b', { open: false, expires_at: 1_000 }],
      ]),
    );
    // A recipient the api has no window for never wrote: closed.
    expect(second).toEqual(
      new Map([
        ['c', { open: false, expires_at: 1_000 }],
        ['d', { open: false, expires_at: null }],
      ]),
    );
    await windows.of([row('e', '+7004')]);
    expect(calls).toHaveLength(2);
    // The connection's app is read once.
    expect(findById).toHaveBeenCalledTimes(1);
  });

  it('shows the window as not known while the api does not answer', async () => {
    const { windows } = windowsWith(() => Promise.reject(new Error('no responders')), { 'conn-wa': 42 });
    expect(await windows.of([row('a', '+7001'), row('b', '+7002')])).toEqual(
      new Map([
        ['a', null],
        ['b', null],
      ]),
    );
  });

  it('shows a window closed, without asking, on a connection with no app', async () => {
    const { windows, calls } = windowsWith(() => Promise.resolve({ windows: [] }), { 'conn-wa': null });
    expect(await windows.of([row('a', '+7001')])).toEqual(new Map([['a', { open: false, expires_at: null }]]));
    expect(calls).toHaveLength(0);
  });
});
