import { counter, histogram } from '@app/server';

/**
 * Outcomes: `sent` (the channel accepted it now), `resumed` (it had been accepted before a crash or
 * a redelivery: not sent again), `retry` (transient failure, back on the stream), `failed` (given
 * up: message.failed published), `invalid` (unreadable work item, dead-lettered), `withdrawn` (failed by the
 * api before it was sent: acked unsent), `deferred` (back on the stream until its sender's turn).
 */
export type DeliveryOutcome = 'sent' | 'resumed' | 'retry' | 'failed' | 'invalid' | 'withdrawn' | 'deferred';

export const queueMessages = () =>
  counter('queue_messages_total', 'Outbound messages handled by the delivery workers', [
    'channel',
    'priority',
    'outcome',
  ]);

export const queueSendDuration = () =>
  histogram(
    'queue_send_duration_seconds',
    'Duration of one channel send call',
    ['channel'],
    [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );

export const queuePacedWait = () =>
  histogram(
    'queue_paced_wait_seconds',
    'Time a message waited for its sender or recipient pace',
    ['channel'],
    [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  );
