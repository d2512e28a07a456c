import { createHmac } from 'node:crypto';
import { sha256BodySignature } from '@app/auth';
import { eventKeyOf, eventTypeOf, keySegments, normalizePhone, parseFormBody, readPath } from './course-body';

describe('course event bodies', () => {
  describe('form bodies', () => {
    it('turns bracketed and dotted keys into nested objects', () => {
      expect(parseFormBody('type=payment&user[phone]=%2B7%20999&user.first_name=Ana&deal[cost]=1500')).toEqual({
        type: 'payment',
        user: { phone: '+7 999', first_name: 'Ana' },
        deal: { cost: '1500' },
      });
    });

    it('nests several levels and collects `[]` keys into lists', () => {
      expect(parseFormBody('a[b][c]=1&tags[]=x&tags[]=y')).toEqual({ a: { b: { c: '1' } }, tags: ['x', 'y'] });
    });

    it('keeps the last value of a repeated key and never touches prototypes', () => {
      const body = parseFormBody('n=1&n=2&__proto__[polluted]=yes&user[constructor][x]=1');
      expect(body).toEqual({ n: '2' });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('splits keys into segments', () => {
      expect(keySegments('user[phone]')).toEqual(['user', 'phone']);
      expect(keySegments('user.address[city]')).toEqual(['user', 'address', 'city']);
      expect(keySegments('plain')).toEqual(['plain']);
    });
  });

  describe('dotted paths', () => {
    const body = { user: { phone: '79990001122', age: 30, vip: true, empty: ' ' }, items: [{ title: 'SQL' }] };

    it('reads strings, numbers and booleans as text, and list items by index', () => {
      expect(readPath(body, 'user.phone')).toBe('79990001122');
      expect(readPath(body, 'user.age')).toBe('30');
      expect(readPath(body, 'user.vip')).toBe('true');
      expect(readPath(body, 'items.0.title')).toBe('SQL');
    });

    it('is undefined for missing, empty, object-valued and prototype paths', () => {
      expect(readPath(body, 'user.email')).toBeUndefined();
      expect(readPath(body, 'user.empty')).toBeUndefined();
      expect(readPath(body, 'user')).toBeUndefined();
      expect(readPath(body, 'user.constructor')).toBeUndefined();
      expect(readPath(body, 'deal.cost')).toBeUndefined();
    });
  });

  describe('event identity and type', () => {
    it('takes the id or event_id field when given', () => {
      expect(eventKeyOf({ id: 'evt-1', type: 'x' })).toBe('evt-1');
      expect(eventKeyOf({ event_id: 42 })).toBe('42');
    });

    it('hashes the canonical body otherwise, whatever the key order', () => {
      const a = eventKeyOf({ type: 'payment', user: { phone: '1', name: 'A' } });
      const b = eventKeyOf({ user: { name: 'A', phone: '1' }, type: 'payment' });
      expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(a).toBe(b);
      expect(eventKeyOf({ type: 'payment', user: { phone: '2', name: 'A' } })).not.toBe(a);
    });

    it('reads the type from `type`, else `event`', () => {
      expect(eventTypeOf({ type: 'payment', event: 'other' })).toBe('payment');
      expect(eventTypeOf({ event: 'lesson_started' })).toBe('lesson_started');
      expect(eventTypeOf({ name: 'x' })).toBeNull();
    });
  });

  it('signs the exact body: sha256= and the hex HMAC-SHA256 under the api key', () => {
    const raw = '{"event":"message.sent"}';
    expect(sha256BodySignature('key-123456', raw)).toBe(
      `sha256=${createHmac('sha256', 'key-123456').update(raw).digest('hex')}`,
    );
    expect(sha256BodySignature('key-123456', raw)).not.toBe(sha256BodySignature('key-654321', raw));
  });

  it('normalizes phone numbers written with punctuation, and nothing else', () => {
    expect(normalizePhone('+7 (999) 000-11-22')).toBe('79990001122');
    expect(normalizePhone('@channel')).toBe('@channel');
  });
});
