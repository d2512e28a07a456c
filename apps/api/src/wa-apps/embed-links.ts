import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@app/auth';
import { Clock } from '@app/server';
import { ApiConfig } from '../config';

/** What a link token says once its signature is checked. */
export type EmbedLinkCheck = 'valid' | 'expired' | 'invalid';

export interface EmbedLink {
  url: string;
  /** Unix seconds. */
  expiresAt: number;
}

/**
 * Onboarding links (the API's embed_link_url, docs/api.md). The browser that opens one has no bearer token:
 * the link token `t` is its credential, bound to one app and signed with its expiry
 * (`<expiry>.<hmac>`), so a leaked link stops working by itself. It is also spent once the app
 * has a number (the onboarding service checks that).
 */
@Injectable()
export class EmbedLinks {
  constructor(
    private readonly config: ApiConfig,
    private readonly clock: Clock,
  ) {}

  private sign(appUuid: string, expiresAt: number): string {
    return createHmac('sha256', this.config.onboardingSecret)
      .update(`onboarding:${appUuid}:${expiresAt}`)
      .digest('base64url');
  }

  /** The page path, under the api's global prefix. */
  pagePath(appUuid: string): string {
    return `/api/v1/onboarding/${appUuid}`;
  }

  /** A new link for the app, valid for ONBOARDING_LINK_TTL_HOURS from `now`. */
  create(appUuid: string, now = this.clock.nowMs()): EmbedLink {
    const expiresAt = Math.floor(now / 1000) + this.config.ONBOARDING_LINK_TTL_HOURS * 3600;
    const base = this.config.API_PUBLIC_URL.replace(/\/+$/, '');
    return {
      url: `${base}${this.pagePath(appUuid)}?t=${expiresAt}.${this.sign(appUuid, expiresAt)}`,
      expiresAt,
    };
  }

  /** Whether `token` is this app's link token, and whether it is still in time. */
  check(appUuid: string, token: unknown, now = this.clock.nowMs()): EmbedLinkCheck {
    if (typeof token !== 'string' || token.length > 128) return 'invalid';
    const m = /^([1-9][0-9]{0,11})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!m || !constantTimeEqual(m[2], this.sign(appUuid, Number(m[1])))) return 'invalid';
    return Number(m[1]) * 1000 > now ? 'valid' : 'expired';
  }
}
