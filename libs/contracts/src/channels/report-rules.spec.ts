import { chargedStatusOf, maskAddress } from './registry';

describe('one status vocabulary and one way to mask a recipient', () => {
  it("charges a message at SENT on a channel without receipts, at DELIVERED elsewhere (the channel's registration)", () => {
    expect(chargedStatusOf('telegram')).toBe('SENT');
    expect(chargedStatusOf('max')).toBe('SENT');
    expect(chargedStatusOf('whatsapp')).toBe('DELIVERED');
    expect(chargedStatusOf('unknown')).toBe('DELIVERED');
  });

  it('masks a recipient by its address kind on the channel: partly shown, never whole', () => {
    expect(maskAddress('whatsapp', '5511987650002')).toBe('5511*******02');
    expect(maskAddress('whatsapp', 'US.13491208655302741918')).toBe('US.13****************18');
    expect(maskAddress('telegram', '424242')).toBe('424*42');
    expect(maskAddress('telegram', '-1001234567890')).toBe('-10*********90');
    expect(maskAddress('telegram', '@shop_news')).toBe('@sh*****ws');
    expect(maskAddress('max', '515151')).toBe('515*51');
    // Too short to show a part of: hidden whole.
    expect(maskAddress('telegram', '42')).toBe('**');
    expect(maskAddress('fax', 'abcdef')).toBe('a****f');
  });
});
