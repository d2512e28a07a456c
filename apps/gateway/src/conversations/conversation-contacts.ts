import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
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
import { ContactRow, ContactsRepository, ContactValues } from '../contacts/contacts.repository';
import { EMPTY_CONTACT } from '../contacts/contacts.service';

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
  constructor(
    private readonly contacts: ContactsRepository,
    @InjectDataSource() private readonly ds: DataSource,
  ) {}

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

  /**
   * The contacts of many senders of one account, in the order given: one lookup for all of them;
   * the senders no contact knows made together (one transaction), unless two of them share an
   * address; a sender with an address its contact lacks, or one made in a race, the single way.
   */
  async ofSenders(accountId: string, senders: SenderOf[]): Promise<ContactRow[]> {
    const lookUp = async (of: SenderOf[]) => {
      const byAddress = new Map<string, ContactRow[]>();
      for (const c of await this.contacts.matching(accountId, { externalIds: [], addresses: of.flatMap(keysOf) })) {
        for (const a of c.addresses) byAddress.set(addressKey(a), [...(byAddress.get(addressKey(a)) ?? []), c]);
      }
      return (s: SenderOf) => [...new Set(keysOf(s).flatMap((a) => byAddress.get(addressKey(a)) ?? []))];
    };
    const matchesOf = await lookUp(senders);
    const unknown = senders.filter((s) => !matchesOf(s).length);
    const named = unknown.flatMap((s) => keysOf(s).map(addressKey));
    let made: ((s: SenderOf) => ContactRow[]) | null = null;
    if (unknown.length > 1 && new Set(named).size === named.length) {
      made = await this.makeAll(accountId, unknown)
        .then(() => lookUp(unknown))
        .catch(() => null); // another write took an address first: each goes the single way
    }
    return Promise.all(
      senders.map(async (s) => {
        const keys = keysOf(s);
        const mine = matchesOf(s).length ? matchesOf(s) : (made?.(s) ?? []);
        const contact = pick(keys, mine);
        if (contact && !missingOf(s.addresses, mine).length) return contact;
        return this.ofSender(accountId, s.addresses, s.previous, s.name ?? null);
      }),
    );
  }

  /** New contacts for senders no contact knows, with their addresses, in one transaction. */
  private async makeAll(accountId: string, senders: SenderOf[]): Promise<void> {
    await this.ds.transaction((em) =>
      this.contacts.writeMany(
        em,
        accountId,
        senders.map((s) => ({ id: uuidv7(), ...newContact(s.addresses, s.name ?? null) })),
        [],
      ),
    );
  }

  private async findOrCreate(
    accountId: string,
    addresses: ContactAddress[],
    previous: ContactAddress | null,
    name: string | null,
  ): Promise<ContactRow> {
    const keys = keysOf({ addresses, previous });
    const matches = await this.contacts.matching(accountId, { externalIds: [], addresses: keys });
    const contact = pick(keys, matches);
    if (!contact) {
      return this.contacts.insert(accountId, newContact(addresses, name));
    }
    const missing = missingOf(addresses, matches);
    if (!missing.length || contact.addresses.length + missing.length > MAX_CONTACT_ADDRESSES) return contact;
    const { id, account_id: _a, created_at: _c, updated_at: _u, ...values } = contact;
    return this.contacts.update(id, { ...values, addresses: [...contact.addresses, ...missing] });
  }
}

/** A sender as an inbound message names it. */
export interface SenderOf {
  addresses: ContactAddress[];
  /** The user id it had before (WhatsApp), which still finds its contact. */
  previous: ContactAddress | null;
  name?: string | null;
}

/** A contact made for a sender: its addresses and profile name, nothing else. */
const newContact = (addresses: ContactAddress[], name: string | null): ContactValues => ({
  ...EMPTY_CONTACT,
  name,
  addresses,
});

/** Every address a sender can be found by. */
const keysOf = (s: SenderOf): ContactAddress[] => (s.previous ? [...s.addresses, s.previous] : s.addresses);

/** The contact of the first address named (the phone before the user id), else the oldest match. */
function pick(keys: ContactAddress[], matches: ContactRow[]): ContactRow | undefined {
  const rank = (c: ContactRow) => {
    const held = new Set(c.addresses.map(addressKey));
    const at = keys.findIndex((a) => held.has(addressKey(a)));
    return at < 0 ? keys.length : at;
  };
  return [...matches].sort((a, b) => rank(a) - rank(b))[0];
}

/** The addresses no matching contact holds yet: they join the chosen one (another's stay with it). */
function missingOf(addresses: ContactAddress[], matches: ContactRow[]): ContactAddress[] {
  const taken = new Set(matches.flatMap((c) => c.addresses.map(addressKey)));
  return addresses.filter((a) => !taken.has(addressKey(a)));
}
