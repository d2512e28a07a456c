import { isPhoneRegion, phoneDigits } from './phone-numbers';

describe('phone numbers as people write them', () => {
  it.each([
    ['+7 999 000-05-00', null, '79990000500'],
    ['+7 (999) 000 05 00', 'US', '79990000500'],
    ['00 44 20 7946 0958', null, '442079460958'],
    ['79990001122', null, '79990001122'],
    ['(555) 123-4567', 'US', '15551234567'],
    ['8 (999) 000-05-00', 'RU', '79990000500'],
    ['020 7946 0958', 'GB', '442079460958'],
  ])('reads %s (region %s) as %s', (written, region, digits) => {
    expect(phoneDigits(written, region)).toBe(digits);
  });

  it.each([
    ['(555) 123-4567', null, 'a national number without a default region'],
    ['+7 999', null, 'too short for its country'],
    ['+1 555 123 4567 ext. 5', null, 'an extension'],
    ['0999000500', null, 'digits starting with 0 and no region'],
    ['+7 999 000-05-00\u0000', null, 'a control character'],
    ['tel:+79990000500', null, 'a URI'],
    ['x'.repeat(40), 'US', 'not a number'],
  ])('refuses %s (region %s): %s', (written, region, _why) => {
    expect(phoneDigits(written, region)).toBeNull();
  });

  it('knows regions by their ISO code in upper case', () => {
    expect(isPhoneRegion('RU')).toBe(true);
    expect(isPhoneRegion('ru')).toBe(false);
    expect(isPhoneRegion('XX')).toBe(false);
  });
});
