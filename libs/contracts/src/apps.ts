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
  /** A new app of the user and its onboarding link (the console's "Connect WhatsApp"). */
  startSignup: 'apps.signups.start',
} as const;

export interface StartSignupRequest {
  user_id: string;
  /** The app's name: APP_NAME_LENGTH characters. */
  name: string;
}

/** How long an app's name may be, in characters. */
export const APP_NAME_LENGTH = { min: 5, max: 150 } as const;

/** The new app and the link that opens its embedded signup. */
export interface StartSignupReply {
  app_id: number;
  embed_link_url: string;
  /** Unix seconds. */
  expires_at: number;
}

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
      /** The connected number, digits only (absent from older answers). */
      phone?: string | null;
    };
