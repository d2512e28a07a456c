import { findUnboundedInput, flattenValidationErrors, INPUT_LIMITS, validationProblemOf } from './validation';

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

describe('findUnboundedInput', () => {
  it('takes nesting up to the limit and refuses one level more, without recursion', () => {
    expect(findUnboundedInput(nested(INPUT_LIMITS.depth))).toBeNull();
    expect(findUnboundedInput(nested(INPUT_LIMITS.depth + 1))).toMatchObject({ message: /nested at most/ });
    expect(findUnboundedInput(nested(200_000))).toMatchObject({ message: /nested at most/ });
  });

  it('takes arrays and objects up to their limits and names the field one past them', () => {
    const items = (n: number) => ({ list: Array.from({ length: n }, () => 0) });
    expect(findUnboundedInput(items(INPUT_LIMITS.arrayItems))).toBeNull();
    expect(findUnboundedInput(items(INPUT_LIMITS.arrayItems + 1))).toMatchObject({ field: 'list' });
    const keys = (n: number) => ({ o: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])) });
    expect(findUnboundedInput(keys(INPUT_LIMITS.objectKeys))).toBeNull();
    expect(findUnboundedInput(keys(INPUT_LIMITS.objectKeys + 1))).toMatchObject({ field: 'o' });
  });

  it('counts every value of the input', () => {
    const wide = Array.from({ length: 50 }, () => Array.from({ length: 50 }, () => 0));
    expect(findUnboundedInput({ wide })).toMatchObject({ field: 'body', message: /at most 2000 values/ });
  });

  it('refuses U+0000 and lone surrogates, in values and in names, and takes paired ones', () => {
    expect(findUnboundedInput({ a: { b: ['ok', 'x\u0000'] } })).toMatchObject({ field: 'a.b.1' });
    expect(findUnboundedInput({ email: 'a\ud800@example.com' })).toMatchObject({ field: 'email' });
    expect(findUnboundedInput({ e: '\udc00' })).toMatchObject({ field: 'e' });
    expect(findUnboundedInput({ ['k\u0000']: 1 })).not.toBeNull();
    expect(findUnboundedInput({ emoji: 'Hi 😀 👍🏽' })).toBeNull();
    expect(findUnboundedInput('\u0000', 'messageId')).toMatchObject({ field: 'messageId' });
  });

  it('reports the first field of the input first', () => {
    expect(findUnboundedInput({ body: '\u0000', body_example: '\u0000' })).toMatchObject({ field: 'body' });
  });
});

describe('validation problems', () => {
  it('flattens nested errors to dotted paths in order', () => {
    const errors = flattenValidationErrors([
      { property: 'buttons', children: [{ property: '0', children: [{ property: 'text', constraints: { a: 'x' } }] }] },
      { property: 'name', constraints: { b: 'y' } },
    ]);
    expect(errors).toEqual([
      { field: 'buttons.0.text', message: 'x' },
      { field: 'name', message: 'y' },
    ]);
  });

  it('lists at most the limit, clips long names and counts the rest', () => {
    const errors = Array.from({ length: 25 }, (_, i) => ({
      field: `f${i}`.repeat(i === 0 ? 1000 : 1),
      message: 'bad',
    }));
    const body = validationProblemOf(errors).toBody();
    expect(body.errors).toHaveLength(INPUT_LIMITS.listedErrors);
    expect(body.errors?.[0].field.length).toBeLessThanOrEqual(200);
    expect(body.detail).toBe('The request is not valid; 5 more errors are not listed.');
  });
});
