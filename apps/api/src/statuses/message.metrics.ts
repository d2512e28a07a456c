import type { Channel, MessageStatus } from '@app/contracts';
import { counter, histogram } from '@app/server';

// Registered when the module loads, so /metrics lists them (and the dashboard can rely on them)
// before the first message moves.
const statusLatency = histogram(
  'message_status_latency_seconds',
  'Time from the send being accepted to the message reaching a status (SENT, DELIVERED, READ, FAILED)',
  ['channel', 'status'],
  [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 24 * 3600],
);
const channelErrors = counter('channel_errors_total', 'Messages the channel failed, by error code', [
  'channel',
  'code',
]);

/**
 * Called once per message and status (when the status first enters the timeline), so replicas and
 * redelivered events never count twice. `nowMs` is when the status was recorded (the Clock's time).
 */
export function observeMessageStatus(
  message: { channel: Channel; createdAt: Date },
  status: MessageStatus,
  nowMs: number,
  errorCode?: string | null,
): void {
  const seconds = Math.max(0, (nowMs - message.createdAt.getTime()) / 1000);
  statusLatency.labels(message.channel, status).observe(seconds);
  if (status === 'FAILED') channelErrors.labels(message.channel, errorCode ?? 'unknown').inc();
}
