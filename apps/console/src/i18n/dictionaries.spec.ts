import { en } from './en';
import { ru } from './ru';

describe('the console dictionaries', () => {
  it('every language has exactly the keys of English, each a non-empty text', () => {
    const keys = Object.keys(en).sort();
    expect(Object.keys(ru).sort()).toEqual(keys);
    for (const [key, value] of Object.entries(ru)) expect([key, value.trim().length > 0]).toEqual([key, true]);
  });

  it('a translation keeps the placeholders of the English text', () => {
    const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect([key, placeholders(ru[key])]).toEqual([key, placeholders(en[key])]);
    }
  });
});
