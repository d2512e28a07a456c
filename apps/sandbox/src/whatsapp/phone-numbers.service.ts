import { Injectable } from '@nestjs/common';

export interface SandboxPhoneNumber {
  id: string;
  waba_id: string;
  display_phone_number: string;
  verified_name: string;
  quality_rating: 'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN';
  messaging_limit_tier: string;
  /** The number's status on the channel: CONNECTED, RESTRICTED, BANNED, DISCONNECTED (account signals). */
  status: string;
}

/**
 * Business phone numbers the sandbox knows, so callbacks carry the right WABA id (`entry.id`).
 * Any phone_number_id can send; an unregistered one reports WABA `0` in its callbacks.
 */
@Injectable()
export class PhoneNumbersService {
  private readonly numbers = new Map<string, SandboxPhoneNumber>();

  register(n: Partial<SandboxPhoneNumber> & { id: string; waba_id: string }): SandboxPhoneNumber {
    const stored: SandboxPhoneNumber = {
      display_phone_number: n.display_phone_number ?? `+1 555-${n.id.slice(-7).padStart(7, '0')}`,
      verified_name: n.verified_name ?? 'Sandbox Business',
      quality_rating: n.quality_rating ?? 'GREEN',
      messaging_limit_tier: n.messaging_limit_tier ?? 'TIER_250',
      status: n.status ?? 'CONNECTED',
      ...n,
    };
    this.numbers.set(n.id, stored);
    return stored;
  }

  get(id: string): SandboxPhoneNumber | undefined {
    return this.numbers.get(id);
  }

  /** A registered number, or the defaults an unregistered one is shown with. */
  describe(id: string): SandboxPhoneNumber {
    return (
      this.numbers.get(id) ?? {
        id,
        waba_id: '0',
        display_phone_number: `+1 555-${id.slice(-7).padStart(7, '0')}`,
        verified_name: 'Sandbox Business',
        quality_rating: 'GREEN',
        messaging_limit_tier: 'TIER_250',
        status: 'CONNECTED',
      }
    );
  }

  ofWaba(wabaId: string): SandboxPhoneNumber[] {
    return [...this.numbers.values()].filter((n) => n.waba_id === wabaId);
  }

  wabaOf(phoneNumberId: string): string {
    return this.numbers.get(phoneNumberId)?.waba_id ?? '0';
  }

  clear(): void {
    this.numbers.clear();
  }
}
