import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { canonicalAddress, isPrimaryKind } from '@app/contracts';
import { ApiConfig } from '../config';

/**
 * The keyed hash under which consent keeps an address (HMAC-SHA256 with CONSENT_ADDRESS_SECRET):
 * the same address always gives the same key, so a send finds its record, and a record says
 * nothing of the address without the key (an erased contact's opt-out stays, its address does not).
 */
@Injectable()
export class AddressKeys {
  private readonly secret: string;

  constructor(config: ApiConfig) {
    this.secret = config.consentAddressSecret;
  }

  /**
   * The key of an address of `kind` (absent: the channel's primary kind, a WhatsApp phone). A
   * primary address keeps the key it always had, so opt-outs recorded before addresses had kinds
   * keep applying; another kind's key names the kind, so a username spelled like a phone's digits
   * is never that phone.
   */
  keyOf(channel: string, address: string, kind?: string): string {
    return createHmac('sha256', this.secret)
      .update(
        `${channel}\n${isPrimaryKind(channel, kind) ? '' : `${kind}\n`}${canonicalAddress(channel, address, kind)}`,
      )
      .digest('hex');
  }
}
