import { createHash } from 'node:crypto';

/**
 * Tracked links of a campaign (docs/campaigns.md#tracked-links): with `track_links`, every https
 * URL in the params a recipient is sent becomes a short link `/l/<token>` on the gateway, which
 * redirects to the URL and records the recipient's first click by a person.
 */

/** A person's click of a tracked link, stored in the INBOUND stream until it is recorded. */
export interface LinkClick {
  /** The link's opaque token (it names the campaign's recipient and the URL in the gateway's store). */
  token: string;
  /** Unix seconds of the request. */
  clicked_at: number;
}

/** `data` of `message.clicked`: a recipient of a campaign clicked a tracked link of its message, first time. */
export interface MessageClickedData {
  message_id: string;
  recipient: string;
  campaign_id: string;
  /** The contact the campaign sent it to. */
  contact_id: string;
  /** The URL the link redirects to. */
  url: string;
  /** Unix seconds of the click. */
  clicked_at: number;
}

/** The one id of "this message's recipient clicked": a click relayed twice is one event. */
export function messageClickedEventId(messageId: string): string {
  return `evt_${createHash('sha256').update(`${messageId}:clicked`).digest('hex').slice(0, 32)}`;
}

/** The https URLs a param's text holds, as they are replaced by tracked links. */
export const TRACKABLE_URL = /https:\/\/[^\s<>"'{}|\\^`]+/g;
