import { Injectable } from '@nestjs/common';
import { FieldError, NotFoundProblem, ValidationProblem } from '@app/server';
import { WhatsAppWebhookPayload } from '@app/channels';
import { SignalKind } from './dto/emulate-signal.dto';
import { PhoneNumbersService, SandboxPhoneNumber } from './phone-numbers.service';
import { WebhookDelivery, WebhookDispatcher } from './webhook-dispatcher';

const QUALITIES = ['GREEN', 'YELLOW', 'RED', 'UNKNOWN'] as const;
const TIERS = ['TIER_50', 'TIER_250', 'TIER_1K', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED', 'TIER_NOT_SET'];
/** How long an emulated restriction of business-initiated messaging lasts. */
const RESTRICTION_MS = 24 * 60 * 60 * 1000;

/** The tier whose cap a daily conversation cap is (Meta reports both on capability changes). */
function tierOfCap(cap: number): string {
  if (cap < 0) return 'TIER_UNLIMITED';
  const tiers: [number, string][] = [
    [50, 'TIER_50'],
    [250, 'TIER_250'],
    [1000, 'TIER_1K'],
    [2000, 'TIER_2K'],
    [10_000, 'TIER_10K'],
    [100_000, 'TIER_100K'],
  ];
  return tiers.find(([n]) => cap <= n)?.[1] ?? 'TIER_UNLIMITED';
}

const rank = (tier: string) => TIERS.indexOf(tier === 'TIER_NOT_SET' ? 'TIER_250' : tier);

/**
 * Account signals of the emulated channel: each changes what `GET /{phone_number_id}` answers
 * (so a periodic pull sees it) and, unless told not to, sends the webhook Meta sends for it,
 * signed like every other callback.
 */
@Injectable()
export class AccountSignalsService {
  constructor(
    private readonly numbers: PhoneNumbersService,
    private readonly webhooks: WebhookDispatcher,
  ) {}

  async emulate(
    phoneNumberId: string,
    kind: SignalKind,
    value: unknown,
    callback = true,
  ): Promise<{ number: SandboxPhoneNumber; webhook: WebhookDelivery | null }> {
    const n = this.numbers.get(phoneNumberId);
    if (!n) throw new NotFoundProblem('phone number (register it first)');
    const change = this.change(n, kind, value);
    if (!callback) return { number: n, webhook: null };
    const payload: WhatsAppWebhookPayload = {
      object: 'whatsapp_business_account',
      entry: [{ id: n.waba_id, time: Math.floor(Date.now() / 1000), changes: [change] }],
    };
    return { number: n, webhook: await this.webhooks.start(payload).first };
  }

  /** Applies the change to the number and returns the webhook change that tells it. */
  private change(n: SandboxPhoneNumber, kind: SignalKind, value: unknown): { field: string; value: unknown } {
    const invalid = (message: string): never => {
      throw new ValidationProblem([{ field: 'value', message } satisfies FieldError]);
    };
    const flag = () => (typeof value === 'boolean' ? value : invalid(`${kind} takes true or false`));
    switch (kind) {
      case 'quality': {
        if (!(QUALITIES as readonly unknown[]).includes(value)) invalid(`quality is one of ${QUALITIES.join(', ')}`);
        n.quality_rating = value as SandboxPhoneNumber['quality_rating'];
        return {
          field: 'phone_number_quality_update',
          value: {
            display_phone_number: n.display_phone_number,
            event: value === 'RED' ? 'FLAGGED' : 'UNFLAGGED',
            current_limit: n.messaging_limit_tier,
          },
        };
      }
      case 'limit': {
        if (typeof value !== 'string' || !TIERS.includes(value)) invalid(`limit is one of ${TIERS.join(', ')}`);
        const old = n.messaging_limit_tier;
        n.messaging_limit_tier = value as string;
        return {
          field: 'phone_number_quality_update',
          value: {
            display_phone_number: n.display_phone_number,
            event: rank(value as string) >= rank(old) ? 'UPGRADE' : 'DOWNGRADE',
            old_limit: old,
            current_limit: value,
          },
        };
      }
      case 'capability': {
        if (typeof value !== 'number' || !Number.isSafeInteger(value) || value === 0) {
          invalid('capability takes a daily conversation cap (a whole number; negative: unlimited)');
        }
        n.messaging_limit_tier = tierOfCap(value as number);
        return {
          field: 'business_capability_update',
          value: { max_daily_conversation_per_phone: value, max_phone_numbers_per_business: 2 },
        };
      }
      case 'restriction': {
        const on = flag();
        n.status = on ? 'RESTRICTED' : 'CONNECTED';
        const expiration = new Date(Date.now() + RESTRICTION_MS).toISOString();
        return {
          field: 'account_update',
          value: {
            phone_number: n.display_phone_number,
            event: 'ACCOUNT_RESTRICTION',
            restriction_info: on ? [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration }] : [],
          },
        };
      }
      case 'disabled': {
        const on = flag();
        n.status = on ? 'BANNED' : 'CONNECTED';
        return {
          field: 'account_update',
          value: {
            phone_number: n.display_phone_number,
            event: 'DISABLED_UPDATE',
            ban_info: { waba_ban_state: on ? 'DISABLE' : 'REINSTATE', waba_ban_date: new Date().toDateString() },
          },
        };
      }
      case 'offboarded': {
        const on = flag();
        n.status = on ? 'DISCONNECTED' : 'CONNECTED';
        return {
          field: 'account_update',
          value: { phone_number: n.display_phone_number, event: on ? 'ACCOUNT_OFFBOARDED' : 'ACCOUNT_RECONNECTED' },
        };
      }
    }
  }
}
