import { INestApplication } from '@nestjs/common';
import { MessageCategory, newMessageId, OutboundMessage, priorityOf, Topology } from '@app/contracts';
import { SendTransaction } from '../../apps/api/src/sending/send-transaction';
import type { AppEntity } from '../../apps/api/src/wa-apps/app.entity';

/**
 * A WhatsApp template send committed by the api's own send transaction (message, hold, outbox row,
 * usage), its publish skipped: what a crash right after the commit leaves, or a send recorded as
 * accepted at an earlier time (`at`). Answers the work item the publish would have carried.
 */
export async function commitTemplateSend(
  api: INestApplication,
  topology: Topology,
  send: {
    userId: string;
    app: Pick<AppEntity, 'id' | 'phoneNumberId' | 'wabaId'>;
    recipient: string;
    category: MessageCategory;
    price: number;
    template: string;
    at?: Date;
  },
): Promise<OutboundMessage> {
  const id = newMessageId();
  const priority = priorityOf(send.category);
  const at = send.at ?? new Date();
  const outbound: OutboundMessage = {
    id,
    channel: 'whatsapp',
    priority,
    category: send.category,
    user_id: send.userId,
    app_id: send.app.id,
    sender: { connection_id: send.app.phoneNumberId!, waba_id: send.app.wabaId },
    recipient: send.recipient,
    kind: 'TEMPLATE',
    content: { template: { name: send.template, language: 'en', components: [] } } as OutboundMessage['content'],
    queued_at: at.getTime(),
  };
  const outcome = await api.get(SendTransaction).commit({
    message: {
      id,
      userId: send.userId,
      accountId: null,
      appId: send.app.id,
      channel: 'whatsapp',
      recipient: send.recipient,
      kind: 'TEMPLATE',
      category: send.category,
      priority,
      templateId: null,
      providerMessageId: null,
      price: send.price,
      idempotencyKey: null,
      requestHash: null,
      failureCode: null,
      failureReason: null,
      ...(send.at ? { createdAt: send.at } : {}),
    },
    tier: null,
    outbox: { id, subject: topology.outboundSubject(priority, 'whatsapp'), payload: outbound },
  });
  if (!('accepted' in outcome) || !outcome.accepted)
    throw new Error(`the send was not accepted: ${JSON.stringify(outcome)}`);
  return outbound;
}
