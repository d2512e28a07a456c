import { FailoverStep, GatewaySendChannel } from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { UnprocessableProblem, ValidationProblem } from '@app/server';
import { ConnectionEntity } from '../connections/connection.entity';
import { ConnectionsRepository } from '../connections/connections.repository';

/** What a send needs of a live connection: its id, the linked app (WhatsApp), the sealed bot token. */
export type LiveSender = Pick<ConnectionEntity, 'id' | 'appId' | 'credential'>;

/** The account's live connection of each channel (null where it has none). */
export type LiveSenders = Partial<Record<GatewaySendChannel, LiveSender | null>>;

/**
 * The live connections of these channels, read once in one query (a campaign routes every contact
 * with them; a send reads its channels and the template source together).
 */
export async function liveSendersOf(
  connections: ConnectionsRepository,
  accountId: string,
  channels: readonly GatewaySendChannel[],
): Promise<LiveSenders> {
  const live = await connections.liveOfChannels(accountId, channels);
  const senders: LiveSenders = {};
  for (const channel of channels) senders[channel] = live.find((c) => c.channel === channel) ?? null;
  return senders;
}

/** A step on a channel the account has a live connection of (a bot's with its sealed token), or null. */
export function stepOn(senders: LiveSenders, channel: GatewaySendChannel, to: string): FailoverStep | null {
  const own = senders[channel];
  if (!own || (channel !== 'whatsapp' && !own.credential)) return null;
  return {
    channel,
    to,
    ...(channel !== 'whatsapp' ? { sender: { connection_id: own.id, credential: own.credential! } } : {}),
  };
}

/**
 * A contact's failover route (docs/failover.md): each of `channels` in order on which the contact
 * has an identity and the account a live connection. Empty when there is none.
 */
export function contactRoute(
  identities: Partial<Record<GatewaySendChannel, string | null>>,
  channels: readonly GatewaySendChannel[],
  senders: LiveSenders,
): FailoverStep[] {
  const route: FailoverStep[] = [];
  for (const channel of channels) {
    const to = identities[channel];
    const step = to ? stepOn(senders, channel, to) : null;
    if (step) route.push(step);
  }
  return route;
}

/** The linked WhatsApp app whose templates the account sends; 422 when it has none. */
export async function templateAppOf(connections: ConnectionsRepository, accountId: string): Promise<number> {
  return templateAppIn(await liveSendersOf(connections, accountId, ['whatsapp']));
}

/** `templateAppOf` from senders already read with WhatsApp among their channels. */
export function templateAppIn(senders: LiveSenders): number {
  const whatsapp = senders.whatsapp;
  if (!whatsapp?.appId) {
    throw new UnprocessableProblem(
      'no-template-source',
      'No templates',
      'Templates come from a linked WhatsApp app: link one with POST /v1/connections {"channel":"whatsapp","app_id":…}.',
    );
  }
  return whatsapp.appId;
}

/**
 * A media URL (a template's `media_url`, a content's `content.url`) as a channel (or the MAX connector itself) fetches it: https, no
 * credentials, no internal IP literal; the name's addresses are checked when the media is downloaded.
 */
export function checkMediaUrl(targets: TargetPolicy, url: string, field = 'media_url'): void {
  const media = targets.checkForm(url);
  if (!media.ok) throw new ValidationProblem([{ field, message: `${field} ${media.reason}` }]);
}
