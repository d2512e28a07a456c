/**
 * Engagement filters of a campaign's audience (docs/campaigns.md#engagement-filters): contacts who
 * received, read, clicked or replied to another campaign of the account in the last N days, or did
 * not receive it.
 */
export const ENGAGEMENTS = ['received', 'read', 'clicked', 'replied', 'not_received'] as const;
export type Engagement = (typeof ENGAGEMENTS)[number];

export const ENGAGEMENT_LIMITS = { maxDays: 365 } as const;

/** `audience.filter.engagement`. */
export interface CampaignEngagement {
  /** Another campaign of the account. */
  campaign_id: string;
  did: Engagement;
  /** 1 to 365: only what happened in the last so many days counts; absent: any time. */
  within_days?: number | null;
}

/** Which of these contacts did `did` (received, read or replied) in the account's campaign. */
export interface CampaignEngagementRequest {
  account_id: string;
  campaign_id: string;
  did: 'received' | 'read' | 'replied';
  within_days: number | null;
  /** At most 5,000 contact ids. */
  contact_ids: string[];
}

export interface CampaignEngagementResult {
  contact_ids: string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FIELDS = ['campaign_id', 'did', 'within_days'];

/** Every rule `engagement` breaks (at `audience.filter.engagement`); an empty list when absent or valid. */
export function engagementErrors(raw: unknown): { field: string; message: string }[] {
  const at = 'audience.filter.engagement';
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return [{ field: at, message: `${at} must be {"campaign_id", "did", "within_days"}` }];
  }
  const e = raw as Record<string, unknown>;
  const errors = Object.keys(e)
    .filter((k) => !FIELDS.includes(k))
    .map((k) => ({ field: `${at}.${k}`, message: 'is not a field' }));
  if (typeof e.campaign_id !== 'string' || !UUID.test(e.campaign_id)) {
    errors.push({ field: `${at}.campaign_id`, message: 'campaign_id must be a campaign id' });
  }
  if (!(ENGAGEMENTS as readonly unknown[]).includes(e.did)) {
    errors.push({ field: `${at}.did`, message: `did must be one of ${ENGAGEMENTS.join(', ')}` });
  }
  const days = e.within_days;
  if (
    days !== undefined &&
    days !== null &&
    !(Number.isInteger(days) && (days as number) >= 1 && (days as number) <= ENGAGEMENT_LIMITS.maxDays)
  ) {
    errors.push({
      field: `${at}.within_days`,
      message: `within_days must be a whole number of days from 1 to ${ENGAGEMENT_LIMITS.maxDays}`,
    });
  }
  return errors;
}
