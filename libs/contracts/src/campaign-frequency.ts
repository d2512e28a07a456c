/**
 * Frequency rules of marketing campaigns (docs/campaigns.md#frequency-rules): at most N marketing
 * campaign messages per contact in a rolling period, and no template a contact had within the
 * last D days. The account's settings (`GET|PUT /v1/campaigns/settings`, kept by the api) apply
 * to every campaign; a campaign's `frequency` overrides them field by field.
 */

/** The bounds of each rule. */
export const FREQUENCY_LIMITS = {
  maxMessages: 1_000,
  /** 30 days. */
  maxPeriodHours: 720,
  maxTemplateDays: 365,
} as const;

/** At most `messages` marketing campaign messages per contact in any `period_hours`. */
export interface FrequencyCap {
  messages: number;
  period_hours: number;
}

/**
 * The rules as written: in the account's settings every field is set (null: off); in a
 * campaign's `frequency` an absent field keeps the account's and null turns the rule off.
 */
export interface FrequencyRules {
  frequency_cap?: FrequencyCap | null;
  /** Skip a contact who was sent this template by a campaign within this many days. */
  recent_template_days?: number | null;
}

/** The account's campaign settings (every field present; null: the rule is off). */
export interface CampaignSettings {
  frequency_cap: FrequencyCap | null;
  recent_template_days: number | null;
}

/** Why the frequency rules keep a contact from a campaign: the skip reasons and estimate exclusions. */
export const FREQUENCY_SKIPS = ['frequency_cap', 'recent_template'] as const;
export type FrequencySkip = (typeof FREQUENCY_SKIPS)[number];

/** The problem a send the rules refuse carries (its `reason` one of FREQUENCY_SKIPS). */
export const FREQUENCY_PROBLEM = 'frequency-limited';

export const DEFAULT_CAMPAIGN_SETTINGS: CampaignSettings = { frequency_cap: null, recent_template_days: null };

export interface GetCampaignSettingsRequest {
  user_id: string;
}

export interface UpdateCampaignSettingsRequest {
  user_id: string;
  /** The fields to change (checked by frequencyRulesErrors); the others keep their value. */
  settings: unknown;
}

/** The estimate's dry run of the rules for some contacts, at the time of the request. */
export interface CampaignFrequencyRequest {
  user_id: string;
  /** The template's category: the rules hold only for MARKETING. */
  category: string;
  template: string;
  /** The campaign's override (its definition's `frequency`). */
  frequency: FrequencyRules | null;
  contact_ids: string[];
}

export interface CampaignFrequencyResult {
  /** Per contact, in order: the rule that keeps it from the campaign, or null. */
  excluded: (FrequencySkip | null)[];
}

type FieldErrors = { field: string; message: string }[];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown, max: number): boolean => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= max;

/**
 * Every field of frequency rules that breaks a rule, named under `at` (`frequency.` in a
 * definition, '' in the settings); unknown fields included.
 */
export function frequencyRulesErrors(raw: unknown, at: string): FieldErrors {
  const name = at ? at.slice(0, -1) : 'body';
  if (!isObject(raw)) return [{ field: name, message: `${name} must be an object` }];
  const L = FREQUENCY_LIMITS;
  const errors: FieldErrors = Object.keys(raw)
    .filter((k) => k !== 'frequency_cap' && k !== 'recent_template_days')
    .map((k) => ({ field: `${at}${k}`, message: 'is not a field' }));
  const cap = raw.frequency_cap;
  if (cap !== undefined && cap !== null) {
    if (!isObject(cap)) {
      errors.push({
        field: `${at}frequency_cap`,
        message: 'frequency_cap must be {"messages": n, "period_hours": h} or null',
      });
    } else {
      for (const k of Object.keys(cap))
        if (k !== 'messages' && k !== 'period_hours')
          errors.push({ field: `${at}frequency_cap.${k}`, message: 'is not a field' });
      if (!isCount(cap.messages, L.maxMessages))
        errors.push({
          field: `${at}frequency_cap.messages`,
          message: `messages must be a whole number from 1 to ${L.maxMessages}`,
        });
      if (!isCount(cap.period_hours, L.maxPeriodHours))
        errors.push({
          field: `${at}frequency_cap.period_hours`,
          message: `period_hours must be a whole number from 1 to ${L.maxPeriodHours}`,
        });
    }
  }
  const days = raw.recent_template_days;
  if (days !== undefined && days !== null && !isCount(days, L.maxTemplateDays)) {
    errors.push({
      field: `${at}recent_template_days`,
      message: `recent_template_days must be a whole number from 1 to ${L.maxTemplateDays}, or null`,
    });
  }
  return errors;
}

/** The rules a campaign runs by: each field of its override that is present, else the account's. */
export function effectiveFrequency(
  account: CampaignSettings,
  override: FrequencyRules | null | undefined,
): CampaignSettings {
  const o = override ?? {};
  return {
    frequency_cap: o.frequency_cap !== undefined ? o.frequency_cap : account.frequency_cap,
    recent_template_days: o.recent_template_days !== undefined ? o.recent_template_days : account.recent_template_days,
  };
}
