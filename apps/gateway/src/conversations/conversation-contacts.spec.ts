import { recipientAddress, senderAddresses } from './conversation-contacts';

describe('the addresses a conversation finds its contact by', () => {
  it('takes a WhatsApp sender by its phone, its business-scoped user id, or both', () => {
    const both = { phone: '79990001122', user_id: 'RU.123', username: null };
    expect(senderAddresses('whatsapp', '79990001122', both)).toEqual([
      { channel: 'whatsapp', kind: 'phone', value: '79990001122' },
      { channel: 'whatsapp', kind: 'user_id', value: 'RU.123' },
    ]);
    expect(senderAddresses('whatsapp', 'RU.123', { phone: null, user_id: 'RU.123', username: null })).toEqual([
      { channel: 'whatsapp', kind: 'user_id', value: 'RU.123' },
    ]);
  });

  it('takes a Telegram chat id with its username, and a MAX user id', () => {
    expect(senderAddresses('telegram', '5550001', { phone: null, user_id: '5550001', username: 'anna_shop' })).toEqual([
      { channel: 'telegram', kind: 'chat_id', value: '5550001' },
      { channel: 'telegram', kind: 'username', value: '@anna_shop' },
    ]);
    expect(senderAddresses('max', '5550002', undefined)).toEqual([
      { channel: 'max', kind: 'user_id', value: '5550002' },
    ]);
  });

  it('reads `from` by the channel kinds when the event names no sender, and nothing it cannot read', () => {
    expect(senderAddresses('whatsapp', '79990001122', undefined)).toEqual([
      { channel: 'whatsapp', kind: 'phone', value: '79990001122' },
    ]);
    expect(senderAddresses('telegram', 'not an id', undefined)).toEqual([]);
  });

  it("reads an outbound message's recipient as the channel's address", () => {
    expect(recipientAddress('whatsapp', '79990001122')).toEqual({
      channel: 'whatsapp',
      kind: 'phone',
      value: '79990001122',
    });
    expect(recipientAddress('max', '42')).toEqual({ channel: 'max', kind: 'user_id', value: '42' });
  });
});
