import { Injectable } from '@nestjs/common';
import {
  addressKindOf,
  ContactAddress,
  InboundSender,
  primaryAddressKind,
  readAddress,
  addressKindsOf,
} from '@app/contracts';
import { isPgError, PG_ERROR } from '@app/database';
import { addressKey, MAX_CONTACT_ADDRESSES } from '../contacts/contact-addresses';
import { ContactRow, ContactsRepository } from '../contacts/contacts.repository';

/** How often a contact write that lost a race (an address another write just took) is tried again. */
const RACE_RETRIES = 3;

/** One address, as the channel's kind keeps it; null when the kind does not take the value. */
function addressOf(channel: string, kind: string, value: string | null | undefined): ContactAddress | null {
  if (!value) return null;
  const stored = addressKindOf(channel, kind)?.canonical(value, { defaultRegion: null }) ?? null;
  return stored === null ? null : { channel, kind, value: stored };
}

/**
 * The addresses an inbound message names its sender by: on WhatsApp the phone and the
 * business-scoped user id (either or both), on Telegram the chat id and the username, on MAX the
 * user id; `from` read by the channel's kinds when the sender names none.
 */
export function senderAddresses(channel: string, from: string, sender: InboundSender | undefined): ContactAddress[] {
  const named =
    channel === 'whatsapp'
      ? [addressOf(channel, 'phone', sender?.phone), addressOf(channel, 'user_id', sender?.user_id)]
      : channel === 'telegram'
        ? [
            addressOf(channel, 'chat_id', from),
            addressOf(channel, 'username', sender?.username ? `@${sender.username.replace(/^@/, '')}` : null),
          ]
        : [addressOf(channel, primaryAddressKind(channel)?.kind ?? 'user_id', from)];
  const found = named.filter((a): a is ContactAddress => a !== null);
  if (found.length) return found;
  const read = readAddress(addressKindsOf(channel), from);
  return read ? [{ channel, ...read }] : [];
}

/** The address an outbound message's recipient is, on its channel; null when no kind takes it. */
export function recipientAddress(channel: string, recipient: string): ContactAddress | null {
  const read = readAddress(addressKindsOf(channel), recipient);
  return read ? { channel, ...read } : null;
}

/**
 * The contacts of conversations: a sender found by any address it is known by (or by the user id it
 * had before), its missing addresses added to it, or a new contact made for it. Consent is never
 * touched here: it is kept per address by the api, and a message in is no consent.
 */
@Injectable()
export class ConversationContacts {
  constructor(private readonly contacts: ContactsRepository) {}

  /** The contact the addresses name (made when none does), with every one of them. */
  async ofSender(
    accountId: string,
    addresses: ContactAddress[],
    previous: ContactAddress | null,
    name: string | null,
  ): Promise<ContactRow> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.findOrCreate(accountId, addresses, previous, name);
      } catch (err) {
        // Another write took one of the addresses first: look again, and find its contact.
        if (!isPgError(err, PG_ERROR.uniqueViolation) || attempt >= RACE_RETRIES) throw err;
      }
    }
  }

  /** The contact holding this address, or null. */
  async byAddress(accountId: string, address: ContactAddress): Promise<ContactRow | null> {
    const [found] = await this.contacts.matching(accountId, { externalIds: [], addresses: [address] });
    return found ?? null;
  }

  private async findOrCreate(
    accountId: string,
    addresses: ContactAddress[],
    previous: ContactAddress | null,
    name: string | null,
  ): Promise<ContactRow> {
    const keys = previous ? [...addresses, previous] : addresses;
    const matches = await this.contacts.matching(accountId, { externalIds: [], addresses: keys });
    // The contact of the first address named (the phone before the user id), else the oldest match.
    const rank = (c: ContactRow) => {
      const held = new Set(c.addresses.map(addressKey));
      const at = keys.findIndex((a) => held.has(addressKey(a)));
      return at < 0 ? keys.length : at;
    };
    const [contact] = [...matches].sort((a, b) => rank(a) - rank(b));
    if (!contact) {
      return this.contacts.insert(accountId, {
        external_id: null,
        name,
        addresses,
        time_zone: null,
        language: null,
        attributes: {},
        lists: [],
      });
    }
    // Addresses another contact holds stay with it; the rest join this one (up to the cap).
    const taken = new Set(matches.flatMap((c) => c.addresses.map(addressKey)));
    const missing = addresses.filter((a) => !taken.has(addressKey(a)));
    if (!missing.length || contact.addresses.length + missing.length > MAX_CONTACT_ADDRESSES) return contact;
    const { id, account_id: _a, created_at: _c, updated_at: _u, ...values } = contact;
    return this.contacts.update(id, { ...values, addresses: [...contact.addresses, ...missing] });
  }
}
