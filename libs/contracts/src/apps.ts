/**
 * Request/reply served by the api (owner of apps) for services that meet a channel connection and
 * need its tenant: the gateway stamps `app_id` and `user_id` on the events it publishes from
 * channel callbacks. Patterns are put under the topology prefix by the transport.
 */
export const APPS_RPC = {
  resolveConnection: 'apps.connections.resolve',
  describe: 'apps.describe',
  /** An account signal from the channel (callback relayed by the gateway): the api applies it. */
  applySignal: 'apps.signals.apply',
} as const;

/** Which app a channel connection belongs to: by the number (`phone_number_id`), else by the WABA. */
export interface ResolveConnectionRequest {
  channel: 'whatsapp';
  phone_number_id?: string;
  waba_id?: string;
}

/** The owning app and tenant, or nulls when no app has that connection. */
export type ResolveConnectionReply = { app_id: number; user_id: string } | { app_id: null; user_id: null };

/** An app as another service may see it, to link it (the gateway's WhatsApp connections). */
export interface DescribeAppRequest {
  app_id: number;
}

export type DescribeAppReply =
  | { found: false }
  | {
      found: true;
      app_id: number;
      user_id: string;
      status: 'INACTIVE' | 'ACTIVE' | 'BLOCKED';
      is_stopped: boolean;
      phone_number_id: string | null;
      waba_id: string | null;
    };
