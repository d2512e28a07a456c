import { Injectable, OnModuleInit } from '@nestjs/common';
import { sentContent } from '@app/contracts';
import { AcceptedSend, AcceptedSends } from '../messages/accepted-sends';
import { ConversationContacts, recipientAddress } from './conversation-contacts';
import { ConversationsRecorder } from './conversations.recorder';
import { ConversationsRepository } from './conversations.repository';

/**
 * Records every send the gateway's send path has accepted on one channel (`POST /v1/messages`, a
 * conversation's reply, a course rule) in the thread of the contact holding its recipient's
 * address, with its content, at once; a send to an address no contact holds is in no thread. A
 * failover route's content is kept until its first status names the channel the api chose.
 */
@Injectable()
export class OutboundContents implements OnModuleInit {
  constructor(
    private readonly sends: AcceptedSends,
    private readonly contacts: ConversationContacts,
    private readonly recorder: ConversationsRecorder,
    private readonly conversations: ConversationsRepository,
  ) {}

  onModuleInit(): void {
    this.sends.listen((send) => this.record(send));
  }

  async record(send: AcceptedSend): Promise<void> {
    if (send.routed) {
      // Which channel was asked to send it is not known here: no rendered_as.
      await this.conversations.keepContent(send.accountId, send.messageId, sentContent({ ...send, renderedAs: null }));
      return;
    }
    const address = recipientAddress(send.step.channel, send.step.to);
    if (!address) return;
    const contact = await this.contacts.byAddress(send.accountId, address);
    if (!contact) return;
    await this.recorder.sent(
      {
        accountId: send.accountId,
        connectionId: send.connectionId,
        channel: send.step.channel,
        contactId: contact.id,
        address: address.value,
        sender: null,
      },
      send.messageId,
      sentContent(send),
    );
  }
}
