import { CampaignRecipientInput, GATEWAY_SEND_CHANNELS, GatewaySendChannel } from '@app/contracts';
import { FieldError } from '@app/server';
import { isTimeZone } from './campaign-rules';

/** The longest channel address a recipient's route may name. */
const ADDRESS_MAX = 64;

/** Whether a value names one of the channels a campaign sends on. */
export const isChannel = (c: unknown): c is GatewaySendChannel =>
  typeof c === 'string' && (GATEWAY_SEND_CHANNELS as readonly string[]).includes(c);

/** What is wrong with one recipient of a load page (the gateway resolved it; the api checks it again). */
export function recipientErrors(r: CampaignRecipientInput, at: string): FieldError[] {
  if (typeof r !== 'object' || r === null) return [{ field: at, message: 'must be an object' }];
  const errors: FieldError[] = [];
  if (!Number.isInteger(r.seq) || r.seq < 1 || r.seq > 2_000_000_000)
    errors.push({ field: `${at}.seq`, message: 'must be a positive whole number' });
  if (typeof r.contact_id !== 'string' || !r.contact_id || r.contact_id.length > 200) {
    errors.push({ field: `${at}.contact_id`, message: 'must be 1 to 200 characters' });
  }
  if (
    r.external_id !== null &&
    r.external_id !== undefined &&
    (typeof r.external_id !== 'string' || r.external_id.length > 200)
  ) {
    errors.push({ field: `${at}.external_id`, message: 'must be at most 200 characters' });
  }
  if (!isTimeZone(r.time_zone)) errors.push({ field: `${at}.time_zone`, message: 'must be an IANA time zone' });
  const skip = r.skip;
  if (skip !== undefined && skip !== null && !['no_identity', 'duplicate', 'missing_param'].includes(skip)) {
    errors.push({ field: `${at}.skip`, message: 'must be no_identity, duplicate or missing_param' });
  }
  const route = r.route;
  const routeOk =
    Array.isArray(route) &&
    route.length <= GATEWAY_SEND_CHANNELS.length &&
    (route.length >= 1 || (skip !== undefined && skip !== null)) &&
    new Set(route.map((s) => s?.channel)).size === route.length &&
    route.every(
      (s) =>
        isChannel(s?.channel) &&
        typeof s.to === 'string' &&
        s.to.length >= 1 &&
        s.to.length <= ADDRESS_MAX &&
        (s.channel === 'whatsapp' ||
          (typeof s.sender?.connection_id === 'string' && typeof s.sender?.credential === 'string')),
    );
  if (!routeOk) {
    errors.push({
      field: `${at}.route`,
      message: 'must be 1 to 3 distinct channels, each an address (and a bot sender)',
    });
  }
  if (
    !Array.isArray(r.params) ||
    r.params.length > 100 ||
    !r.params.every((p) => typeof p === 'string' && p.length <= 1024)
  ) {
    errors.push({ field: `${at}.params`, message: 'must be at most 100 strings of at most 1024 characters' });
  }
  return errors;
}
