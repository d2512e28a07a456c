import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { GraphDebugToken, SIGNUP_SCOPES } from '@app/channels';
import { SandboxConfig } from '../config';
import { graphErrors } from './graph-error';
import { PhoneNumbersService, SandboxPhoneNumber } from './phone-numbers.service';

/** Meta's codes are short-lived and single-use. */
const CODE_TTL_MS = 10 * 60 * 1000;

/** What one signup granted: one WABA (and through it, its numbers). */
export interface SignupGrant {
  waba_id: string;
  phone_number_id: string;
}

export interface SignupRecord {
  /** WABA id to the app ids subscribed to its webhooks. */
  subscribed_apps: Record<string, string[]>;
  /** Numbers registered for Cloud API, with the two-step PIN they were registered with. */
  registered: { phone_number_id: string; pin: string }[];
}

/**
 * The embedded signup as Meta runs it: a business finishes the flow (a control call here) and
 * gets a code; the code is exchanged once for a business token whose debug_token grants that one
 * WABA; the token reaches only that WABA and its numbers.
 */
@Injectable()
export class SignupService {
  private readonly codes = new Map<string, { grant: SignupGrant; expiresAt: number }>();
  private readonly tokens = new Map<string, SignupGrant>();
  private readonly subscribed = new Map<string, Set<string>>();
  private readonly registered = new Map<string, string>();

  constructor(
    private readonly config: SandboxConfig,
    private readonly numbers: PhoneNumbersService,
  ) {}

  /** A business completes the signup choosing this WABA and number: the number joins the WABA. */
  issueCode(grant: SignupGrant, number: Omit<Partial<SandboxPhoneNumber>, 'id' | 'waba_id'>): string {
    this.numbers.register({ id: grant.phone_number_id, waba_id: grant.waba_id, ...number });
    const code = `sandbox-code-${randomBytes(18).toString('base64url')}`;
    this.codes.set(code, { grant, expiresAt: Date.now() + CODE_TTL_MS });
    return code;
  }

  /** `oauth/access_token`: the app's own credentials and an unused code, or Graph's 400. */
  exchange(clientId: unknown, clientSecret: unknown, code: unknown): { access_token: string; token_type: 'bearer' } {
    if (clientId !== this.config.WHATSAPP_APP_ID || clientSecret !== this.config.WHATSAPP_APP_SECRET) {
      throw graphErrors.invalidParameter('Error validating client secret.');
    }
    const issued = typeof code === 'string' ? this.codes.get(code) : undefined;
    if (typeof code === 'string') this.codes.delete(code);
    if (!issued || issued.expiresAt < Date.now()) {
      throw graphErrors.invalidParameter('This authorization code has expired or has been used.', 36009);
    }
    const token = `sandbox-business-${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, issued.grant);
    return { access_token: token, token_type: 'bearer' };
  }

  /** The grant of a business token, or undefined for any other string. */
  grantOf(token: string): SignupGrant | undefined {
    return this.tokens.get(token);
  }

  /** `debug_token`, asked with the app token (`app_id|app_secret`). */
  debug(appToken: string | null, inputToken: unknown): GraphDebugToken {
    if (appToken !== `${this.config.WHATSAPP_APP_ID}|${this.config.WHATSAPP_APP_SECRET}`) {
      throw graphErrors.invalidToken();
    }
    const grant = typeof inputToken === 'string' ? this.tokens.get(inputToken) : undefined;
    if (!grant) return { data: { app_id: this.config.WHATSAPP_APP_ID, is_valid: false } };
    return {
      data: {
        app_id: this.config.WHATSAPP_APP_ID,
        type: 'USER',
        is_valid: true,
        expires_at: 0,
        scopes: [...SIGNUP_SCOPES, 'business_management'],
        granular_scopes: [
          ...SIGNUP_SCOPES.map((scope) => ({ scope, target_ids: [grant.waba_id] })),
          { scope: 'business_management' },
        ],
      },
    };
  }

  subscribe(wabaId: string): { success: true } {
    const apps = this.subscribed.get(wabaId) ?? new Set<string>();
    apps.add(this.config.WHATSAPP_APP_ID);
    this.subscribed.set(wabaId, apps);
    return { success: true };
  }

  register(phoneNumberId: string, body: unknown): { success: true } {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (b.messaging_product !== 'whatsapp') throw graphErrors.invalidParameter('messaging_product must be whatsapp');
    if (typeof b.pin !== 'string' || !/^[0-9]{6}$/.test(b.pin)) {
      throw graphErrors.invalidParameter('pin must be a 6-digit string');
    }
    this.registered.set(phoneNumberId, b.pin);
    return { success: true };
  }

  record(): SignupRecord {
    return {
      subscribed_apps: Object.fromEntries([...this.subscribed].map(([waba, apps]) => [waba, [...apps]])),
      registered: [...this.registered].map(([phone_number_id, pin]) => ({ phone_number_id, pin })),
    };
  }

  clear(): void {
    this.codes.clear();
    this.tokens.clear();
    this.subscribed.clear();
    this.registered.clear();
  }
}
