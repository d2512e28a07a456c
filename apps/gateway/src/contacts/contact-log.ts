import { isUuid } from '@app/contracts';
import { hidePixelToken } from '../pixel/pixel.controller';
import { hideLinkToken } from '../links/tracked-links';
import { hideMediaLink } from '../media/media-links';

/** What a contact reference by external id is logged as. */
const HIDDEN_EXTERNAL = 'ext:<hidden>';
/** What any other reference that is no contact id is logged as (an email sent without `ext:`, say). */
const HIDDEN_REF = '<hidden>';
/** The segments after `/v1/contacts/` that are the route's own words, not a tenant's data. */
const CONTACTS_WORDS = new Set(['imports']);
/** A contact's sub-resources, kept after its hidden reference. */
const CONTACT_SUB_PATHS = new Set(['consent']);

/**
 * A path segment as it reads once its ASCII percent-escapes are decoded, up to three times
 * (`ext%3A`, `%65xt:`, a doubly encoded `ext%253A`); malformed escapes stay as they are, where
 * decodeURIComponent would throw.
 */
function readable(segment: string): string {
  let text = segment;
  for (let i = 0; i < 3 && text.includes('%'); i++) {
    text = text.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return text.toLowerCase();
}

/** Whether the i-th segment is a contact reference that carries the tenant's data (anything but an id). */
function tenantRef(segments: string[], i: number): boolean {
  const text = readable(segments[i]);
  if (text.startsWith('ext:')) return true;
  return i > 0 && readable(segments[i - 1]) === 'contacts' && text !== '' && !isUuid(text) && !CONTACTS_WORDS.has(text);
}

/**
 * A request path as the access and error logs write it: a contact named by its external id
 * (`/v1/contacts/ext:anna@example.com`, however percent-encoded, and its sub-paths) is the
 * tenant's data about a person, so the reference is logged as `ext:<hidden>`. What follows it is
 * kept only when it is a known sub-resource (`/consent`): anything else could be more of the id.
 */
export function hideContactRef(path: string): string {
  const segments = path.split('/');
  const at = segments.findIndex((_, i) => tenantRef(segments, i));
  if (at === -1) return path;
  const rest = segments.slice(at + 1);
  const kept = rest.length === 1 && CONTACT_SUB_PATHS.has(rest[0]) ? `/${rest[0]}` : '';
  const hidden = readable(segments[at]).startsWith('ext:') ? HIDDEN_EXTERNAL : HIDDEN_REF;
  return [...segments.slice(0, at), hidden].join('/') + kept;
}

/** The gateway's request paths as its logs write them: no pixel or link token, no contact's external id, no media link signature. */
export function hideGatewayPath(path: string): string {
  return hideMediaLink(hideContactRef(hideLinkToken(hidePixelToken(path))));
}
