import { Injectable } from '@nestjs/common';
import type { WebhookPricing } from '@app/channels';
import { SandboxConfig } from '../config';

/** The categories the channel bills by (a status callback's `pricing.category`). */
export const PRICING_CATEGORIES = [
  'marketing',
  'marketing_lite',
  'utility',
  'authentication',
  'authentication_international',
  'service',
] as const;
export type PricingCategory = (typeof PRICING_CATEGORIES)[number];

/** The pricing types of per-message pricing. */
export const SANDBOX_PRICING_TYPES = ['regular', 'free_customer_service', 'free_entry_point'] as const;
export type SandboxPricingType = (typeof SANDBOX_PRICING_TYPES)[number];

/** What a test decided the channel bills for a recipient's messages; unset parts follow the default rules. */
export interface PricingRule {
  /** A recipient (digits), or `*` and digits: every recipient ending in them. */
  to: string;
  category?: PricingCategory;
  type?: SandboxPricingType;
  billable?: boolean;
  /** true: the recipient's statuses carry no pricing at all (an older API version). */
  omit?: boolean;
}

/** The customer-service window: 24 hours after the recipient's last message to the number. */
const WINDOW_MS = 24 * 3600 * 1000;
/** Windows and rules remembered at most: the oldest are forgotten first (the sandbox keeps memory bounded). */
const REMEMBERED = 100_000;

/** A bounded map that forgets its oldest entries; a set moves the key to the newest place. */
class Recent<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > REMEMBERED) super.delete(this.keys().next().value!);
    return this;
  }
}

/**
 * What the emulated channel bills for each message, said in its status callbacks as Meta does since
 * July 2025 (per-message pricing): `{ billable, pricing_model: "PMP", category, type }`. Default
 * rules: a free-form message is `service`, free (`free_customer_service`); a utility template to a
 * recipient whose customer-service window is open (they wrote to the number within 24 hours) is
 * free (`free_customer_service`); anything else is billed (`regular`) at its template's category
 * (`marketing_lite` through MM Lite). A template the sandbox does not store (SANDBOX_TEMPLATE_CHECK
 * `known` accepts it) gets no pricing unless a rule names its category. A test can choose the category, type or billable flag per
 * recipient, or have a recipient's statuses carry no pricing (POST /_sandbox/whatsapp/pricing);
 * SANDBOX_STATUS_PRICING=off leaves pricing out of every status.
 */
@Injectable()
export class SandboxPricingService {
  private readonly windows = new Recent<number>();
  private readonly rules = new Recent<PricingRule>();
  /** Rules by the end of the recipient (`*1234`), longest first; a test sets a few. */
  private suffixRules: PricingRule[] = [];

  constructor(private readonly config: SandboxConfig) {}

  /** The recipient wrote to the number: their customer-service window opens (or is refreshed). */
  customerWrote(phoneNumberId: string, from: string, at: number = Date.now()): void {
    this.windows.set(`${phoneNumberId}:${from}`, at);
  }

  windowOpen(phoneNumberId: string, recipient: string, now: number = Date.now()): boolean {
    const wrote = this.windows.get(`${phoneNumberId}:${recipient}`);
    return wrote !== undefined && now - wrote < WINDOW_MS;
  }

  setRule(rule: PricingRule): PricingRule {
    if (rule.to.startsWith('*')) {
      this.suffixRules = [...this.suffixRules.filter((r) => r.to !== rule.to), rule]
        .slice(-1000)
        .sort((a, b) => b.to.length - a.to.length);
    } else {
      this.rules.set(rule.to, rule);
    }
    return rule;
  }

  listRules(): PricingRule[] {
    return [...this.suffixRules, ...this.rules.values()];
  }

  clear(): void {
    this.rules.clear();
    this.suffixRules = [];
    this.windows.clear();
  }

  private ruleFor(recipient: string): PricingRule | undefined {
    return this.rules.get(recipient) ?? this.suffixRules.find((r) => recipient.endsWith(r.to.slice(1)));
  }

  /**
   * The pricing of a send: `category` is what the message is billed as without a rule (the
   * template's category, `marketing_lite` through MM Lite, `service` for a free-form message;
   * null for a template the sandbox does not store). Null: its statuses carry none.
   */
  pricingOf(phoneNumberId: string, recipient: string, category: PricingCategory | null): WebhookPricing | null {
    const rule = this.ruleFor(recipient);
    const billed = rule?.category ?? category;
    if (this.config.SANDBOX_STATUS_PRICING === 'off' || rule?.omit || !billed) return null;
    const free = billed === 'service' || (billed === 'utility' && this.windowOpen(phoneNumberId, recipient));
    const type = rule?.type ?? (free ? 'free_customer_service' : 'regular');
    return {
      billable: rule?.billable ?? type === 'regular',
      pricing_model: 'PMP',
      category: billed,
      type,
    };
  }
}
