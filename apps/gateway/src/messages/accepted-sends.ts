import { Injectable, Logger } from '@nestjs/common';
import { FailoverStep, RenderedAs, SendContent } from '@app/contracts';

/** A send the api accepted, as the gateway's send path knew it. */
export interface AcceptedSend {
  accountId: string;
  /** Our message id (the api's answer). */
  messageId: string;
  /** The channel and address it went to; over a failover route, the route's first. */
  step: FailoverStep;
  /**
   * A failover route of more than one channel: the api chose which one the message went on (consent,
   * the window), so `step` may not be where it went.
   */
  routed: boolean;
  /** The account's connection of `step`. */
  connectionId: string;
  /** The content as sent, or null for a template send. */
  content: SendContent | null;
  /** A template send: the template as named, with its language and params. */
  template: { name: string; language: string | null; params: string[]; media_url: string | null } | null;
  /** What the channel was asked to send for a content, when the answer says. */
  renderedAs: RenderedAs | null;
}

export type AcceptedSendListener = (send: AcceptedSend) => Promise<void>;

/**
 * Tells the parts of the gateway that keep sends (the conversations) of each send the api accepted,
 * whichever surface made it: `POST /v1/messages`, a conversation's reply, a course rule. They are
 * told in the background, so a send's answer (and what its caller does next, as a course rule
 * linking its message) never waits for them; `settled` waits for one send's. A listener that fails
 * is logged: the send stays accepted.
 */
@Injectable()
export class AcceptedSends {
  private readonly logger = new Logger('AcceptedSends');
  private readonly listeners: AcceptedSendListener[] = [];
  /** The sends being told of now, by message id (only while they are). */
  private readonly telling = new Map<string, Promise<void>>();

  listen(listener: AcceptedSendListener): void {
    this.listeners.push(listener);
  }

  accepted(send: AcceptedSend): void {
    const told: Promise<void> = this.tell(send).finally(() => {
      if (this.telling.get(send.messageId) === told) this.telling.delete(send.messageId);
    });
    this.telling.set(send.messageId, told);
  }

  /** Once the listeners were told of this send (at once when they were already). */
  settled(messageId: string): Promise<void> {
    return this.telling.get(messageId) ?? Promise.resolve();
  }

  private async tell(send: AcceptedSend): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(send);
      } catch (err) {
        this.logger.warn({ err: String(err), messageId: send.messageId }, 'an accepted send was not recorded');
      }
    }
  }
}
