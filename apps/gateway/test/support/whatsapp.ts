import { hubSignature, WebhookInboundMessage, WhatsAppWebhookPayload, WebhookStatus } from '@app/channels';

export const APP_SECRET = 'sandbox-app-secret';

export { readEvents, eventsOf, eventsEventually } from '@app/testing';

/** Posts a webhook signed over exactly the bytes sent. */
export function postWebhook(
  gatewayUrl: string,
  raw: string,
  signature: string | null = hubSignature(APP_SECRET, raw),
): Promise<Response> {
  return fetch(`${gatewayUrl}/v1/inbound/whatsapp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(signature ? { 'X-Hub-Signature-256': signature } : {}) },
    body: raw,
  });
}

export function statusesPayload(
  wabaId: string,
  phoneNumberId: string,
  statuses: WebhookStatus[],
): WhatsAppWebhookPayload {
  return messagesPayload(wabaId, phoneNumberId, { statuses });
}

/** Posts one signed status callback of one message (`wamid`) of a business number, to a recipient. */
export function postStatus(
  gatewayUrl: string,
  number: { wabaId: string; phoneNumberId: string },
  wamid: string,
  status: 'sent' | 'delivered' | 'read',
  at: number,
): Promise<Response> {
  return postWebhook(
    gatewayUrl,
    JSON.stringify(
      statusesPayload(number.wabaId, number.phoneNumberId, [
        { id: wamid, status, timestamp: String(at), recipient_id: '79990001122' },
      ]),
    ),
  );
}

/** A callback of the `messages` field (statuses, inbound messages) for one business number. */
export function messagesPayload(
  wabaId: string,
  phoneNumberId: string,
  content: { statuses?: WebhookStatus[]; messages?: WebhookInboundMessage[] },
): WhatsAppWebhookPayload {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: wabaId,
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId },
              ...content,
            },
          },
        ],
      },
    ],
  };
}
