import { CompleteSignupReply, CompleteSignupRequest } from '@app/contracts';
import { GraphClient, GraphClientConfig, WhatsAppApiError } from './graph-client';

/** `GET /oauth/access_token?client_id&client_secret&code`: the business token of one signup. */
export interface GraphTokenExchange {
  access_token: string;
  token_type?: string;
}

/** One permission of a token and the objects (WABA ids) it was granted for. */
export interface GraphGranularScope {
  scope: string;
  target_ids?: string[];
}

/** `GET /debug_token?input_token=`: what a token is and what it may reach. */
export interface GraphDebugToken {
  data: {
    app_id: string;
    type?: string;
    is_valid: boolean;
    expires_at?: number;
    scopes?: string[];
    granular_scopes?: GraphGranularScope[];
  };
}

/** `GET /{phone_number_id}`: the fields onboarding reads. */
export interface GraphPhoneNumber {
  id: string;
  display_phone_number: string;
  verified_name?: string;
  quality_rating?: string;
}

/** The WABA scopes an embedded signup grants; both must name the WABA being connected. */
export const SIGNUP_SCOPES = ['whatsapp_business_management', 'whatsapp_business_messaging'] as const;

export interface WhatsAppSignupConfig extends GraphClientConfig {
  /** The Meta app of the platform (client_id of the code exchange). */
  appId: string;
  /** Its secret: exchanges the code and makes the app token that asks debug_token. */
  appSecret: string;
  /** Two-step verification PIN set on the number when it is registered for Cloud API. */
  twoStepPin: string;
}

const refused = (code: string, message: string) => new WhatsAppApiError('rejected', code, message);

/**
 * Meta's embedded signup, server side. The browser's word is a claim: the code is exchanged for the
 * business's token, debug_token must show that token was granted this WABA by this app, the number
 * must be one of that WABA's, and its number is read from Graph, not taken from the page. Then the
 * app is subscribed to the WABA's webhooks and the number is registered for Cloud API.
 */
export class WhatsAppSignup {
  private readonly graph: GraphClient;

  constructor(private readonly config: WhatsAppSignupConfig) {
    if (!config.appId || !config.appSecret) throw new Error('WhatsAppSignup: appId and appSecret are required');
    this.graph = new GraphClient(config);
  }

  async complete(claim: CompleteSignupRequest): Promise<CompleteSignupReply> {
    const token = await this.exchange(claim.code);
    await this.checkGrant(token, claim.waba_id);
    const numbers = await this.graph.expect<{ data?: { id: string }[] }>(
      this.graph.request('GET', `${encodeURIComponent(claim.waba_id)}/phone_numbers`, {
        token,
        query: { fields: 'id' },
      }),
    );
    if (!(numbers.data ?? []).some((n) => String(n.id) === claim.phone_number_id)) {
      throw refused('signup_number_not_granted', 'The phone number is not one of the business account’s numbers.');
    }
    const number = await this.graph.expect<GraphPhoneNumber>(
      this.graph.request('GET', encodeURIComponent(claim.phone_number_id), {
        token,
        query: { fields: 'id,display_phone_number,verified_name,quality_rating' },
      }),
    );
    const phone = String(number.display_phone_number ?? '').replace(/\D/g, '');
    if (!/^[1-9][0-9]{7,14}$/.test(phone)) {
      throw new WhatsAppApiError('unavailable', 'invalid_response', 'The channel answered without a usable number');
    }
    await this.graph.expect(
      this.graph.request('POST', `${encodeURIComponent(claim.waba_id)}/subscribed_apps`, { token }),
    );
    await this.graph.expect(
      this.graph.request('POST', `${encodeURIComponent(claim.phone_number_id)}/register`, {
        token,
        body: { messaging_product: 'whatsapp', pin: this.config.twoStepPin },
      }),
    );
    return {
      waba_id: claim.waba_id,
      phone_number_id: claim.phone_number_id,
      phone,
      verified_name: number.verified_name ?? null,
    };
  }

  /** The code for the business token; a code Graph refuses (used, expired, forged) is the caller's. */
  private async exchange(code: string): Promise<string> {
    const outcome = await this.graph.request<GraphTokenExchange>('GET', 'oauth/access_token', {
      query: { client_id: this.config.appId, client_secret: this.config.appSecret, code },
    });
    if (
      !outcome.ok &&
      outcome.failure.kind === 'http' &&
      outcome.failure.status < 500 &&
      outcome.failure.status !== 429
    ) {
      throw refused('signup_code_invalid', 'The signup code is not valid (used, expired or not issued to this app).');
    }
    const res = await this.graph.expect(outcome);
    if (typeof res.access_token !== 'string' || !res.access_token) {
      throw new WhatsAppApiError('unavailable', 'invalid_response', 'The channel answered without an access token');
    }
    return res.access_token;
  }

  private async checkGrant(token: string, wabaId: string): Promise<void> {
    const debug = await this.graph.expect<GraphDebugToken>(
      this.graph.request('GET', 'debug_token', {
        token: `${this.config.appId}|${this.config.appSecret}`,
        query: { input_token: token },
      }),
    );
    const d = debug.data;
    if (!d?.is_valid || String(d.app_id) !== this.config.appId) {
      throw refused('signup_code_invalid', 'The signup token is not valid for this app.');
    }
    const granted = (scope: string) =>
      (d.granular_scopes ?? []).some((g) => g.scope === scope && (g.target_ids ?? []).map(String).includes(wabaId));
    if (!SIGNUP_SCOPES.every(granted)) {
      throw refused('signup_waba_not_granted', 'The signup did not grant access to this business account.');
    }
  }
}
