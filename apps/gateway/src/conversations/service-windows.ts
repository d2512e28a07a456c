import { Injectable, Logger } from '@nestjs/common';
import { GATEWAY_MESSAGES_RPC, SERVICE_WINDOWS_MAX } from '@app/contracts';
import { RpcClient } from '@app/messaging';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConversationRow } from './conversations.repository';

/** A WhatsApp conversation's 24-hour customer-service window. */
export interface ConversationWindow {
  open: boolean;
  expires_at: number | null;
}

const CLOSED: ConversationWindow = { open: false, expires_at: null };
const WINDOWS_RPC_TIMEOUT_MS = 5_000;

/**
 * The windows of WhatsApp conversations, read from the one store the api's send check decides a
 * free-form message by (its windows of each app and recipient, fed by `message.received`): a
 * conversation says the window is open exactly when a reply would be accepted. One request per app
 * for a page of conversations; while the api does not answer, the window is not known (null).
 */
@Injectable()
export class ServiceWindows {
  private readonly logger = new Logger('ServiceWindows');

  constructor(
    private readonly rpc: RpcClient,
    private readonly connections: ConnectionsRepository,
  ) {}

  /** The windows of the WhatsApp conversations among `rows` (at most a page), by conversation id. */
  async of(rows: ConversationRow[]): Promise<Map<string, ConversationWindow | null>> {
    const whatsapp = rows.filter((r) => r.channel === 'whatsapp');
    const windows = new Map<string, ConversationWindow | null>(whatsapp.map((r) => [r.id, CLOSED]));
    if (!whatsapp.length) return windows;
    const connectionIds = [...new Set(whatsapp.map((r) => r.connection_id))];
    const apps = new Map(
      await Promise.all(
        connectionIds.map(async (id) => [id, (await this.connections.findById(id))?.appId ?? null] as const),
      ),
    );
    const byApp = new Map<number, ConversationRow[]>();
    for (const r of whatsapp) {
      const app = apps.get(r.connection_id);
      if (app !== null && app !== undefined) byApp.set(app, [...(byApp.get(app) ?? []), r]);
    }
    for (const [appId, of] of byApp) {
      const recipients = [...new Set(of.map((r) => recipientOf(r.address)))];
      for (let i = 0; i < recipients.length; i += SERVICE_WINDOWS_MAX) {
        const asked = recipients.slice(i, i + SERVICE_WINDOWS_MAX);
        const answer = await this.rpc
          .call(
            GATEWAY_MESSAGES_RPC.windows,
            { app_id: appId, recipients: asked },
            { timeoutMs: WINDOWS_RPC_TIMEOUT_MS, unavailable: 'The windows cannot be read right now.' },
          )
          .catch((err: unknown) => {
            this.logger.warn({ err: String(err), appId }, 'the windows could not be read: shown as not known');
            return null;
          });
        const found = new Map((answer?.windows ?? []).map((w) => [w.recipient, w]));
        for (const r of of) {
          if (!asked.includes(recipientOf(r.address))) continue;
          const w = found.get(recipientOf(r.address));
          if (!answer) windows.set(r.id, null);
          else if (w) windows.set(r.id, { open: w.open, expires_at: w.expires_at });
        }
      }
    }
    return windows;
  }
}

/** The recipient as the api keys its window: the customer's address as they wrote from, without a `+`. */
const recipientOf = (address: string): string => address.replace(/^\+/, '');
