import { maskMiddle, readAddress, WHATSAPP_ADDRESSES } from './addresses';
import { addressKindOf, addressKindsOf } from './channels';

describe('address kinds', () => {
  const canonical = (channel: string, kind: string, value: string, defaultRegion?: string) =>
    addressKindOf(channel, kind)!.canonical(value, { defaultRegion });

  it('lists each channel primary kind first', () => {
    expect(addressKindsOf('whatsapp').map((k) => k.kind)).toEqual(['phone', 'user_id', 'username']);
    expect(addressKindsOf('telegram').map((k) => k.kind)).toEqual(['chat_id', 'username']);
    expect(addressKindsOf('max').map((k) => k.kind)).toEqual(['user_id']);
    expect(addressKindsOf('course')).toEqual([]);
    expect(addressKindsOf('__proto__')).toEqual([]);
  });

  it('reads a WhatsApp phone as people write it, national ones in the default region', () => {
    expect(canonical('whatsapp', 'phone', '+7 999 000-05-00')).toBe('79990000500');
    expect(canonical('whatsapp', 'phone', '8 (999) 000-05-00', 'RU')).toBe('79990000500');
    expect(canonical('whatsapp', 'phone', '8 (999) 000-05-00')).toBeNull();
  });

  it.each([
    ['US.13491208655302741918', 'US.13491208655302741918'],
    [' BR.1502576394655843 ', 'BR.1502576394655843'],
    ['US.ENT.11815799212886844830', 'US.ENT.11815799212886844830'],
  ])('keeps the business-scoped user id %s as Meta sends it', (written, stored) => {
    expect(canonical('whatsapp', 'user_id', written)).toBe(stored);
  });

  it.each(['13491208655302741918', 'us.1349', 'USA.1349', 'US.', `US.${'1'.repeat(129)}`])(
    'refuses %s as a business-scoped user id',
    (written) => expect(canonical('whatsapp', 'user_id', written)).toBeNull(),
  );

  it('compares WhatsApp usernames without regard to case, with or without @', () => {
    expect(canonical('whatsapp', 'username', '@Jane.Doe_1')).toBe('jane.doe_1');
    expect(canonical('whatsapp', 'username', 'jane.doe_1')).toBe('jane.doe_1');
  });

  it.each(['ab', '1234', '.jane', 'jane.', 'ja..ne', 'wwwjane', 'jane-doe', 'x'.repeat(36)])(
    'refuses %s as a WhatsApp username',
    (written) => expect(canonical('whatsapp', 'username', written)).toBeNull(),
  );

  it('reads a written address by the first kind that takes it', () => {
    expect(readAddress(WHATSAPP_ADDRESSES, '79990000500')).toEqual({ kind: 'phone', value: '79990000500' });
    expect(readAddress(WHATSAPP_ADDRESSES, 'US.1349')).toEqual({ kind: 'user_id', value: 'US.1349' });
    expect(readAddress(WHATSAPP_ADDRESSES, '@jane_doe')).toEqual({ kind: 'username', value: 'jane_doe' });
    expect(readAddress(addressKindsOf('telegram'), '@news_channel')).toEqual({
      kind: 'username',
      value: '@news_channel',
    });
    expect(readAddress(addressKindsOf('telegram'), '-1001234')).toEqual({ kind: 'chat_id', value: '-1001234' });
    expect(readAddress(addressKindsOf('max'), '@name')).toBeNull();
  });

  it('masks an address so it can be recognised, not reached', () => {
    expect(addressKindOf('whatsapp', 'phone')!.mask('79990001122')).toBe('7999*****22');
    expect(addressKindOf('whatsapp', 'user_id')!.mask('US.13491208655302741918')).toBe('US.13****************18');
    expect(maskMiddle('12345', 4, 2)).toBe('*****');
  });
});
