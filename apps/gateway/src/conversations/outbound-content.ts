import { Injectable, OnModuleInit } from '@nestjs/common';
import { ConversationContent } from '@app/contracts';
import { AcceptedSend, AcceptedSends } from '../messages/accepted-sends';
import { ConversationContacts, recipientAddress } from './conversation-contacts';
import { ConversationsRecorder } from './conversations.recorder';
import { ConversationsRepository } from './conversations.repository';

/**
 * What an outbound message shows in its thread: a template as named (`type: "template"`, with its
 * language, params and media URL), a content as sent with its text or caption as `text`; with
 * `rendered_as` when the send answered it.
 */
export function sentContent(send: Pick<AcceptedSend, 'content' | 'template' | 'renderedAs'>): ConversationContent {
  const renderedAs = send.renderedAs ? { rendered_as: send.renderedAs } : {};
  if (!send.content) {
    const t = send.template!;
    const template = {
      type: 'template',
      text: null,
      template: {
        name: t.name,
        language: t.language,
        params: t.params,
        ...(t.media_url ? { media_url: t.media_url } : {}),
      },
      ...renderedAs,
    };
    return template;
  }
  const c = send.content;
  const text = 'text' in c ? c.text : 'caption' in c ? (c.caption ?? null) : null;
  const sent = { ...c, text, ...renderedAs };
  return sent;
}

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
