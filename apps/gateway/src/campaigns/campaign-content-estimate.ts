import { CampaignQuote, CampaignRecipientInput } from '@app/contracts';
import { EstimateTally } from './campaign-estimate';

/** Whose WhatsApp window is open, one flag per address (the api's `campaigns.windows`). */
export type WindowsOf = (to: string[]) => Promise<boolean[]>;

/**
 * How a batch of consented recipients counts in the estimate (docs/campaigns.md#content-campaigns):
 * on the first channel consent allows, at its price; for a content campaign, a recipient whose
 * first channel is WhatsApp with its 24-hour window closed counts at the fallback template's price
 * when the campaign names one, else on the next channel of its route, else as `window_closed`.
 * The windows are asked once for the batch, only of a content campaign's WhatsApp recipients.
 */
export async function placeRecipients(
  quote: CampaignQuote,
  batch: readonly CampaignRecipientInput[],
  first: readonly number[],
  windowsOf: WindowsOf,
): Promise<(tally: EstimateTally, i: number) => void> {
  const content = quote.content ?? null;
  const onWhatsApp = (i: number) => first[i] >= 0 && batch[i].route[first[i]].channel === 'whatsapp';
  const asked = content?.whatsapp ? batch.map((_r, i) => i).filter(onWhatsApp) : [];
  const flags = asked.length ? await windowsOf(asked.map((i) => batch[i].route[first[i]].to)) : [];
  const closed = new Set(asked.filter((_i, k) => !flags[k]));
  return (tally, i) => {
    const r = batch[i];
    const step = r.route[first[i]];
    if (!content || !closed.has(i)) return tally.include(step.channel, r.time_zone);
    if (content.fallback_price !== null) return tally.include('whatsapp', r.time_zone, content.fallback_price);
    const next = r.route[first[i] + 1];
    return next ? tally.include(next.channel, r.time_zone) : tally.exclude('window_closed');
  };
}
