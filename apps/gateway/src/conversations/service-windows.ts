import { Injectable, Logger } from '@nestjs/common';
import { GATEWAY_MESSAGES_RPC, SERVICE_WINDOWS_MAX } from '@app/contracts';
import { GroupCommit } from '@app/database';
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
/** Connections whose app is remembered; past this, the longest unused is forgotten. */
const APPS_KEPT = 10_000;

/**
 * The windows of WhatsApp conversations, read from the one store the api's send check decides a
 * free-form message by (its windows of each app and recipient, fed by `message.received`): a
 * conversation says the window is open exactly when a reply would be accepted. One request per app
 * for the pages read at once; while the api does not answer, the window is not known (null).
 */
@Injectable()
export class ServiceWindows {
  private readonly logger = new Logger('ServiceWindows');
  /**
   * The app of each WhatsApp connection read so far: a connection is made with its app and never
   * moves to another, so a page does not read it again.
   */
  private readonly apps = new Map<string, Promise<number | null>>();

  constructor(
    private readonly rpc: RpcClient,
    private readonly connections: ConnectionsRepository,
  ) {}

  /**
   * The windows asked for by pages read at the same time, per app: the recipients asked while one
   * request is under way go together in the next (at most SERVICE_WINDOWS_MAX at once), each page
   * answered by a request sent after it asked. Null for a recipient when the api did not answer.
   */
  private readonly asks = new GroupCommit<string, ConversationWindow | null>(
    (app, recipients) => this.ask(Number(app), recipients),
    SERVICE_WINDOWS_MAX,
  );

  /** The windows of the WhatsApp conversations among `rows` (at most a page), by conversation id. */
  async of(rows: ConversationRow[]): Promise<Map<string, ConversationWindow | null>> {
    const whatsapp = rows.filter((r) => r.channel === 'whatsapp');
    const windows = new Map<string, ConversationWindow | null>(whatsapp.map((r) => [r.id, CLOSED]));
    await Promise.all(
      whatsapp.map(async (r) => {
        const app = await this.appOf(r.connection_id);
        if (app !== null) windows.set(r.id, await this.asks.submit(String(app), recipientOf(r.address)));
      }),
    );
    return windows;
  }

  /** One request for the windows of `recipients` (repeats among them answered alike), in their order. */
  private async ask(appId: number, recipients: string[]): Promise<(ConversationWindow | null)[]> {
    const answer = await this.rpc
      .call(
        GATEWAY_MESSAGES_RPC.windows,
        { app_id: appId, recipients: [...new Set(recipients)] },
        { timeoutMs: WINDOWS_RPC_TIMEOUT_MS, unavailable: 'The windows cannot be read right now.' },
      )
      .catch((err: unknown) => {
        this.logger.warn({ err: String(err), appId }, 'the windows could not be read: shown as not known');
        return null;
      });
    if (!answer) return recipients.map(() => null);
    const found = new Map(answer.windows.map((w) => [w.recipient, w]));
    return recipients.map((recipient) => {
      const w = found.get(recipient);
      return w ? { open: w.open, expires_at: w.expires_at } : CLOSED;
    });
  }

  private appOf(connectionId: string): Promise<number | null> {
    const known = this.apps.get(connectionId);
    if (known) {
      // Most recently used last: the first key is the one to forget.
      this.apps.delete(connectionId);
      this.apps.set(connectionId, known);
      return known;
    }
    // Rows of one connection asking at once share one read; one with no app (yet) is read again later.
    const read = this.connections.findById(connectionId).then((c) => c?.appId ?? null);
    if (this.apps.size >= APPS_KEPT) this.apps.delete(this.apps.keys().next().value!);
    this.apps.set(connectionId, read);
    void read.then(
      (app) => app === null && this.apps.get(connectionId) === read && this.apps.delete(connectionId),
      () => this.apps.get(connectionId) === read && this.apps.delete(connectionId),
    );
    return read;
  }
}

/** The recipient as the api keys its window: the customer's address as they wrote from, without a `+`. */
const recipientOf = (address: string): string => address.replace(/^\+/, '');
