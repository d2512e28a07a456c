import { EventHandlersRegistry } from '../events';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService, SERVICE_WINDOW_MS } from './conversations.service';

/** Windows kept in memory, as conversation_windows keeps them: app and recipient to the last inbound time. */
function serviceWith(lastInbound: Record<string, Date>) {
  const windows = {
    lastInbound: async (_app: number, recipient: string) => lastInbound[recipient] ?? null,
    lastInboundOf: async (_app: number, recipients: string[]) =>
      new Map(recipients.filter((r) => lastInbound[r]).map((r) => [r, lastInbound[r]])),
  } as unknown as ConversationsRepository;
  return new ConversationsService(windows, {} as EventHandlersRegistry, { now: () => new Date() } as never);
}

describe('the 24-hour window', () => {
  const wrote = new Date(1_764_900_000_000);
  const service = serviceWith({ '79990001111': wrote });

  it('reads the same for the send check and for the conversations, up to the moment it closes', async () => {
    for (const now of [
      wrote,
      new Date(wrote.getTime() + SERVICE_WINDOW_MS - 1),
      new Date(wrote.getTime() + SERVICE_WINDOW_MS),
    ]) {
      const [shown] = await service.windowsOf(1, ['79990001111'], now);
      expect(shown.open).toBe(await service.isOpen(1, '79990001111', now));
      expect(shown.expires_at).toBe(Math.floor((wrote.getTime() + SERVICE_WINDOW_MS) / 1000));
    }
    expect((await service.windowsOf(1, ['79990001111'], new Date(wrote.getTime() + SERVICE_WINDOW_MS)))[0].open).toBe(
      false,
    );
  });

  it('is closed, with no end, for a recipient who never wrote; answers in the order asked', async () => {
    expect(await service.windowsOf(1, ['70000000000', '79990001111'], wrote)).toEqual([
      { recipient: '70000000000', open: false, expires_at: null },
      { recipient: '79990001111', open: true, expires_at: Math.floor((wrote.getTime() + SERVICE_WINDOW_MS) / 1000) },
    ]);
  });
});
