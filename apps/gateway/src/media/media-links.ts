import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Clock, ProblemError } from '@app/server';
import { GatewayConfig } from '../config';

/** A media link that is expired, altered or signed with another secret: 403, nothing served. */
export class MediaLinkInvalidProblem extends ProblemError {
  constructor(detail: string) {
    super(403, 'media-link-invalid', 'Media link not valid', detail);
  }
}

/** The path every inbound media link starts with (served by MediaController). */
export const INBOUND_MEDIA_PATH = '/v1/media';

/** A media link's path as logs write it: the signature is a credential, so the query is dropped. */
export function hideMediaLink(path: string): string {
  return path.startsWith(`${INBOUND_MEDIA_PATH}/`) ? path.replace(/\?.*$/, '?{signed}') : path;
}

/**
 * Expiring signed links to inbound files: HMAC-SHA256 with MEDIA_LINK_SECRET over the owning
 * account, the message and the expiry, so a link opens one account's one file until it expires,
 * without a token (an agent's browser can show it), and changing any part of it breaks it.
 */
@Injectable()
export class MediaLinks {
  constructor(
    private readonly config: GatewayConfig,
    private readonly clock: Clock,
  ) {}

  /** A link to the message's file, valid for MEDIA_LINK_TTL_S from now; `expires_at` in Unix seconds. */
  sign(accountId: string, messageId: string): { url: string; expires_at: number } {
    const expires = this.clock.nowSeconds() + this.config.MEDIA_LINK_TTL_S;
    const base = this.config.GATEWAY_PUBLIC_URL.replace(/\/+$/, '');
    const sig = this.signature(accountId, messageId, expires);
    return { url: `${base}${INBOUND_MEDIA_PATH}/${messageId}?expires=${expires}&sig=${sig}`, expires_at: expires };
  }

  /** Throws MediaLinkInvalidProblem unless the link was signed for this account's message and has not expired. */
  verify(accountId: string, messageId: string, expires: string | undefined, sig: string | undefined): void {
    const at = Number(expires);
    if (!expires || !/^[0-9]{1,12}$/.test(expires) || !sig || !/^[0-9a-f]{64}$/.test(sig))
      throw new MediaLinkInvalidProblem('The link is not a media link of this gateway.');
    const want = Buffer.from(this.signature(accountId, messageId, at), 'hex');
    if (!timingSafeEqual(want, Buffer.from(sig, 'hex')))
      throw new MediaLinkInvalidProblem('The link is not a media link of this gateway.');
    if (at <= this.clock.nowSeconds())
      throw new MediaLinkInvalidProblem('The link has expired: read the message again for a fresh one.');
  }

  private signature(accountId: string, messageId: string, expires: number): string {
    return createHmac('sha256', this.config.MEDIA_LINK_SECRET)
      .update(`inbound-media:${accountId}:${messageId}:${expires}`)
      .digest('hex');
  }
}
