import { ServiceUnavailableProblem, UnprocessableProblem } from '@app/server';
import { FailoverRepository } from './failover.repository';
import { FailoverService, RouteAttempt } from './failover.service';
import { MessageEntity } from '../messages/message.entity';
import { MessagesRepository } from '../messages/messages.repository';
import { MessagesService } from './messages.service';

const step = (channel: 'whatsapp' | 'telegram' | 'max'): RouteAttempt => ({
  channel,
  appId: channel === 'whatsapp' ? 1 : null,
  sender: { connection_id: `${channel}-sender` },
  recipient: '424242',
  prepared: { category: 'UTILITY', content: { text: { body: 'x' } }, templateId: 1 },
});
const optedOut = () => new UnprocessableProblem('recipient-opted-out', 'Recipient opted out');
const failed = { id: 'm1', userId: 'u', accountId: 'a', status: 'FAILED' } as MessageEntity;

function setUp(enqueue: jest.Mock) {
  const steps = new Map<number, RouteAttempt>([
    [2, step('telegram')],
    [3, step('max')],
  ]);
  const routes = {
    keep: jest.fn(),
    began: jest.fn(),
    attemptsOf: jest.fn().mockResolvedValue(new Map([['m1', { parent: 'm1', position: 1 }]])),
    positions: jest.fn(async () => [...steps.keys()]),
    claim: jest.fn(async (_p: string, at: number) => {
      const s = steps.get(at) ?? null;
      steps.delete(at);
      return s;
    }),
    restore: jest.fn(async (_p: string, at: number, s: RouteAttempt) => void steps.set(at, s)),
    dropSteps: jest.fn(async () => steps.clear()),
  };
  const sends = { enqueue, sendingApp: jest.fn().mockResolvedValue({ id: 1 }) };
  const service = new FailoverService(
    sends as unknown as MessagesService,
    {} as MessagesRepository,
    routes as unknown as FailoverRepository,
  );
  return { service, routes, steps };
}

describe('failover', () => {
  it('accepts on the first channel consent allows, and keeps the rest to try', async () => {
    const enqueue = jest
      .fn()
      .mockRejectedValueOnce(optedOut())
      .mockImplementationOnce(async (s: { alsoWrite: (em: unknown, id: string) => Promise<void> }) => {
        await s.alsoWrite({}, 'm1');
        return 'm1';
      });
    const { service, routes } = setUp(enqueue);
    const id = await service.accept({ userId: 'u', accountId: 'a', idempotency: null }, [
      step('whatsapp'),
      step('telegram'),
      step('max'),
    ]);
    expect(id).toBe('m1');
    expect(enqueue.mock.calls.map(([s]) => s.channel)).toEqual(['whatsapp', 'telegram']);
    expect(routes.keep).toHaveBeenCalledWith({}, 'm1', [step('max')]);
  });

  it('answers the first refusal when consent refuses every channel; other refusals at once', async () => {
    const first = optedOut();
    const { service } = setUp(jest.fn().mockRejectedValueOnce(first).mockRejectedValueOnce(optedOut()));
    await expect(
      service.accept({ userId: 'u', accountId: 'a', idempotency: null }, [step('whatsapp'), step('telegram')]),
    ).rejects.toBe(first);
    const balance = new UnprocessableProblem('insufficient-balance', 'Insufficient balance');
    const other = setUp(jest.fn().mockRejectedValueOnce(balance));
    await expect(
      other.service.accept({ userId: 'u', accountId: 'a', idempotency: null }, [step('whatsapp'), step('telegram')]),
    ).rejects.toBe(balance);
  });

  it('moves on after a failure another channel can fix, once however many callers try', async () => {
    const enqueue = jest.fn().mockResolvedValue('m2');
    const { service } = setUp(enqueue);
    await Promise.all([
      service.afterFailures([{ message: failed, code: '131026' }]),
      service.afterFailures([{ message: failed, code: '131026' }]),
    ]);
    expect(enqueue).toHaveBeenCalledTimes(1);
    expect(enqueue.mock.calls[0][0].channel).toBe('telegram');
  });

  it('skips a channel consent refuses and drops the route after a failure no channel can fix', async () => {
    const enqueue = jest.fn().mockRejectedValueOnce(optedOut()).mockResolvedValueOnce('m3');
    const { service, steps } = setUp(enqueue);
    await service.afterFailures([{ message: failed, code: 'recipient_blocked' }]);
    expect(enqueue.mock.calls.map(([s]) => s.channel)).toEqual(['telegram', 'max']);
    const other = setUp(jest.fn());
    await other.service.afterFailures([{ message: failed, code: 'template_rejected' }]);
    expect(other.routes.dropSteps).toHaveBeenCalledWith('m1');
    expect(steps.size).toBe(0);
  });

  it('puts a step back when the stream or database failed, and not after a refusal', async () => {
    const down = setUp(jest.fn().mockRejectedValueOnce(new ServiceUnavailableProblem('down')));
    await down.service.afterFailures([{ message: failed, code: 'channel_error' }]);
    expect(down.steps.has(2)).toBe(true);
    const poor = setUp(jest.fn().mockRejectedValueOnce(new UnprocessableProblem('insufficient-balance', 'x')));
    await poor.service.afterFailures([{ message: failed, code: 'channel_error' }]);
    expect(poor.steps.has(2)).toBe(false);
  });
});
