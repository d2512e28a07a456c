import type { FailoverStep } from '@app/contracts';
import type { CampaignSendable } from './campaign-template';

/** Whether a WhatsApp recipient's 24-hour window is open (ConversationsService.isOpen). */
export type WindowCheck = (appId: number, to: string) => Promise<boolean>;

/**
 * What a content campaign sends one recipient (docs/campaigns.md#content-campaigns): its content
 * while the recipient's WhatsApp window is open (or its route does not start on WhatsApp); with the
 * window closed, the fallback template over the whole route when the campaign names one, else the
 * content on the rest of the route (the send path leaves WhatsApp out, and skips a route of
 * WhatsApp alone as `window_closed`). A template campaign's sendable is sent as it is.
 */
export async function contentChoice(
  s: CampaignSendable,
  route: readonly FailoverStep[],
  isOpen: WindowCheck,
): Promise<CampaignSendable> {
  if (!s.content || !s.fallback || !s.app) return s;
  const first = route[0];
  if (first?.channel !== 'whatsapp') return s;
  return (await isOpen(s.app.id, first.to)) ? s : s.fallback;
}
