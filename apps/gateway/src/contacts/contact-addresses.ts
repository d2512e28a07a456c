import {
  addressChannels,
  addressKindOf,
  addressKindsOf,
  ContactAddress,
  GatewaySendChannel,
  isPrimaryKind,
  primaryAddressKind,
} from '@app/contracts';
import { FieldError } from '@app/server';

/** The most addresses a contact may have, on all channels together (after a merge). */
export const MAX_CONTACT_ADDRESSES = 20;

/** Sets one kind of address on a channel: the contact's addresses of that kind become `value` (null: none). */
export interface AddressSet {
  channel: string;
  kind: string;
  value: string | null;
}

/** The one key of an address: what an account's addresses are unique by. */
export const addressKey = (a: ContactAddress): string => `${a.channel}\n${a.kind}\n${a.value}`;

/** The field an address is named by in errors and import columns: `whatsapp` for a primary kind, else `whatsapp:user_id`. */
export const addressField = (channel: string, kind: string): string =>
  isPrimaryKind(channel, kind) ? channel : `${channel}:${kind}`;

/** The addresses an input names (to match contacts by): those it gives and those it sets. */
export const namedAddresses = (addresses: ContactAddress[] | undefined, sets: AddressSet[] | undefined) => [
  ...(addresses ?? []),
  ...(sets ?? []).filter((s): s is ContactAddress => s.value !== null),
];

/** Addresses in the order answers list them: by channel, then kind (the primary first), as stored within. */
export function sortAddresses(addresses: ContactAddress[]): ContactAddress[] {
  const channels = addressChannels();
  const rank = (a: ContactAddress) =>
    channels.indexOf(a.channel) * 100 + addressKindsOf(a.channel).findIndex((k) => k.kind === a.kind);
  return addresses
    .map((a, i) => ({ a, i }))
    .sort((x, y) => rank(x.a) - rank(y.a) || x.i - y.i)
    .map((x) => x.a);
}

/** The first of `addresses` of a channel's kind (as answers list them), or null where it has none. */
export const firstAddress = (addresses: ContactAddress[], channel: string, kind: string): string | null =>
  addresses.find((a) => a.channel === channel && a.kind === kind)?.value ?? null;

/** Each channel's primary address (the `identities` of answers: its phone on WhatsApp, ...): the first of its primary kind, null where it has none. */
export function identitiesOf(addresses: ContactAddress[]): Record<GatewaySendChannel, string | null> {
  const out: Record<string, string | null> = {};
  for (const channel of addressChannels())
    out[channel] = firstAddress(addresses, channel, primaryAddressKind(channel)!.kind);
  return out as Record<GatewaySendChannel, string | null>;
}

/**
 * One column per kind of address of every channel with addresses, as registered (primary first):
 * named as imports read them (`whatsapp`, `whatsapp:user_id`, ...), so a channel added at start
 * brings its columns with it.
 */
export function addressColumns(): { channel: string; kind: string; column: string }[] {
  return addressChannels().flatMap((channel) =>
    addressKindsOf(channel).map(({ kind }) => ({ channel, kind, column: addressField(channel, kind) })),
  );
}

/** `addresses` with each set applied, in order: a kind's old addresses replaced by the new one (or removed). */
export function applyAddressSets(addresses: ContactAddress[], sets: AddressSet[]): ContactAddress[] {
  let out = addresses;
  for (const s of sets) {
    const of = (a: ContactAddress) => a.channel === s.channel && a.kind === s.kind;
    const at = out.findIndex(of);
    const kept = out.filter((a) => !of(a));
    if (s.value === null) out = kept;
    else {
      // In the place of the kind's first address, so setting what is there changes nothing.
      const set = { channel: s.channel, kind: s.kind, value: s.value };
      out = at < 0 ? [...kept, set] : [...out.slice(0, at), set, ...kept.slice(at)];
    }
  }
  return out;
}

/**
 * One address as written, read by its channel's kind (a phone in the account's region), with every
 * fault named under `field`; null when it is none.
 */
export function readContactAddress(
  channel: unknown,
  kind: unknown,
  value: unknown,
  field: string,
  region: string | null,
  errors: FieldError[],
): ContactAddress | null {
  const kinds = typeof channel === 'string' ? addressKindsOf(channel) : [];
  if (!kinds.length) {
    errors.push({ field: `${field}.channel`, message: `must be one of ${addressChannels().join(', ')}` });
    return null;
  }
  const rule = typeof kind === 'string' ? addressKindOf(channel as string, kind) : undefined;
  if (!rule) {
    errors.push({ field: `${field}.kind`, message: `must be one of ${kinds.map((k) => k.kind).join(', ')}` });
    return null;
  }
  const stored = typeof value === 'string' ? rule.canonical(value, { defaultRegion: region }) : null;
  if (stored === null) {
    errors.push({ field: `${field}.value`, message: rule.message });
    return null;
  }
  return { channel: channel as string, kind: rule.kind, value: stored };
}

/** The error of a contact with more addresses than it may have, or none. */
export function addressCapError(addresses: ContactAddress[]): FieldError | null {
  return addresses.length > MAX_CONTACT_ADDRESSES
    ? { field: 'addresses', message: `a contact may have at most ${MAX_CONTACT_ADDRESSES} addresses` }
    : null;
}

/** Whether an import column holds an address: a channel (its primary kind) or `<channel>:<kind>`. */
export function isAddressColumn(column: string): boolean {
  const [channel, kind] = column.split(':', 2);
  return kind === undefined ? addressKindsOf(channel).length > 0 : addressKindOf(channel, kind) !== undefined;
}
