import { planEachTime, repeatedStatementName } from './prepared-statements';

describe('repeated statements', () => {
  it('names a statement from its third sending on, always under the same name', () => {
    const text = 'SELECT $1::int AS named_from_the_third';
    expect(repeatedStatementName(text)).toBeUndefined();
    expect(repeatedStatementName(text)).toBeUndefined();
    const name = repeatedStatementName(text);
    expect(name).toMatch(/^s\d+$/);
    expect(repeatedStatementName(text)).toBe(name);
  });

  it('keeps a statement planned each time unnamed, however often it is sent', () => {
    const text = 'SELECT $1::text AS planned_each_time';
    planEachTime(text);
    for (let i = 0; i < 10; i++) expect(repeatedStatementName(text)).toBeUndefined();
  });

  it('stops naming a statement that was already named once it is planned each time', () => {
    const text = 'SELECT $1::text AS named_then_planned';
    for (let i = 0; i < 3; i++) repeatedStatementName(text);
    expect(repeatedStatementName(text)).toMatch(/^s\d+$/);
    planEachTime(text);
    expect(repeatedStatementName(text)).toBeUndefined();
  });
});
