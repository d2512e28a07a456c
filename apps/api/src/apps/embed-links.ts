import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@app/auth';
import { ApiConfig } from '../config';

/**
 * Onboarding links (the spec's embed_link_url). The browser that opens one has no bearer token:
 * the HMAC in the link is its credential, bound to one app.
 */
@Injectable()
export class EmbedLinks {
  constructor(private readonly config: ApiConfig) {}

  private sign(appUuid: string): string {
    return createHmac('sha256', this.config.onboardingSecret).update(`onboarding:${appUuid}`).digest('base64url');
  }

  /** The page path, under the api's global prefix. */
  pagePath(appUuid: string): string {
    return `/api/v1/onboarding/${appUuid}`;
  }

  url(appUuid: string): string {
    const base = this.config.API_PUBLIC_URL.replace(/\/+$/, '');
    return `${base}${this.pagePath(appUuid)}?t=${this.sign(appUuid)}`;
  }

  /** True when `token` is the link token of this app. */
  verify(appUuid: string, token: unknown): boolean {
    if (typeof token !== 'string' || token.length === 0 || token.length > 128) return false;
    return constantTimeEqual(token, this.sign(appUuid));
  }
}
