import { Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { canonicalAddress } from '@app/contracts';
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

  keyOf(channel: string, address: string): string {
    return createHmac('sha256', this.secret)
      .update(`${channel}\n${canonicalAddress(channel, address)}`)
      .digest('hex');
  }
}
