import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  CAMPAIGN_REPLY_WINDOW_HOURS,
  CampaignRecipientReply,
  EventEnvelope,
  InboundContent,
  MessageReceivedData,
} from '@app/contracts';
import { sqlRows } from '@app/database';
import { Clock } from '@app/server';
import { EventHandlersRegistry } from '../events';

/** Reply kinds that name what was pressed: one of them replaces a plain answer kept before. */
export const BUTTON_KINDS = ['button', 'list', 'flow'] as const;
/** The most campaign messages one inbound message counts as a reply to (a contact sent several in the window). */
const MAX_REPLIED_MESSAGES = 100;

/** The report's shape of an inbound message's content (docs/campaigns.md#replies). */
export function replyOf(content: InboundContent | null | undefined, text: string | null): CampaignRecipientReply {
  const r = content?.reply;
  if (r) return { kind: r.kind, id: r.id ?? null, title: r.title ?? null, text: content?.text ?? r.title ?? null };
  return { kind: content?.type ?? 'text', id: null, title: null, text: content?.text ?? text ?? null };
}

/** The sender's addresses as the api keeps recipients: without a leading `+`. */
function senderAddresses(d: Partial<MessageReceivedData>): string[] {
  const all = [d.from, d.sender?.phone, d.sender?.user_id, d.sender?.previous_user_id];
  return [
    ...new Set(all.filter((a): a is string => typeof a === 'string' && a !== '').map((a) => a.replace(/^\+/, ''))),
  ];
}

/**
 * Records replies to campaign messages (docs/campaigns.md#replies) from every `message.received`:
 * a recipient replied when its address wrote on the channel of its campaign message within
 * CAMPAIGN_REPLY_WINDOW_HOURS after the message was accepted, or pressed a button (list row, flow)
 * of that very message whenever. Each recipient keeps its first reply (a later button press
 * replaces a plain answer once), so an event seen twice changes nothing.
 */
@Injectable()
export class CampaignRepliesRecorder implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly registry: EventHandlersRegistry,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.registry.on('message.received', async (event) => {
      await this.record(event);
    });
  }

  /** Marks the recipients this inbound message replies to; the campaigns it touched. */
  async record(event: EventEnvelope): Promise<string[]> {
    const d = event.data as Partial<MessageReceivedData>;
    if (!event.channel || typeof event.user_id !== 'string') return [];
    const addresses = senderAddresses(d);
    if (!addresses.length) return [];
    const seconds = typeof d.timestamp === 'number' && d.timestamp > 0 ? d.timestamp : event.created_at;
    // A sender's clock in the future must not stretch the window: never later than now.
    const at = new Date(Math.min(seconds * 1000, this.clock.nowMs()));
    const reply = replyOf(d.content, d.text ?? null);
    const context = d.content?.reply?.context_message_id ?? d.context_provider_message_id ?? null;
    const pressed = (BUTTON_KINDS as readonly string[]).includes(reply.kind);
    const rows = await sqlRows<{ campaign_id: string }>(
      this.ds,
      `WITH hit AS (
         (SELECT m.id FROM messages m
           WHERE m.user_id = $1 AND m.channel = $2 AND m.campaign_id IS NOT NULL
             AND ltrim(m.recipient, '+') = ANY($3::text[])
             AND m.created_at >= $4::timestamptz - make_interval(hours => $8::integer)
             AND date_trunc('second', m.created_at) <= $4::timestamptz
           ORDER BY m.created_at DESC LIMIT $9)
         UNION
         (SELECT m.id FROM messages m
           WHERE $5::text IS NOT NULL AND m.provider_message_id = $5 AND m.user_id = $1 AND m.channel = $2
             AND m.campaign_id IS NOT NULL AND ($2 = 'whatsapp' OR ltrim(m.recipient, '+') = ANY($3::text[])))
       ), parent AS (
         SELECT DISTINCT coalesce(a.parent_id, hit.id) AS id FROM hit LEFT JOIN message_attempts a ON a.message_id = hit.id
       )
       UPDATE campaign_recipients r
          SET replied_at = coalesce(r.replied_at, $4::timestamptz), reply = $6::jsonb
         FROM parent
        WHERE r.message_id = parent.id
          AND (r.replied_at IS NULL OR ($7::boolean AND NOT (r.reply->>'kind' = ANY($10::text[]))))
       RETURNING r.campaign_id`,
      [
        event.user_id,
        event.channel,
        addresses,
        at,
        context,
        JSON.stringify(reply),
        pressed,
        CAMPAIGN_REPLY_WINDOW_HOURS,
        MAX_REPLIED_MESSAGES,
        [...BUTTON_KINDS],
      ],
    );
    return [...new Set(rows.map((r) => r.campaign_id))];
  }
}
