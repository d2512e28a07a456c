import { DataSource, QueryFailedError } from 'typeorm';
import { isPgError, PG_ERROR, returnedRows, sqlRows } from './rows';

describe('rows of a TypeORM query', () => {
  it('takes the rows out of the [rows, rowCount] answer of UPDATE and DELETE', () => {
    expect(returnedRows([[{ id: 1 }], 1])).toEqual([{ id: 1 }]);
    expect(returnedRows([[], 0])).toEqual([]);
  });

  it('passes the rows of INSERT and SELECT through, even two of them', () => {
    expect(returnedRows([{ id: 1 }, { id: 2 }])).toEqual([{ id: 1 }, { id: 2 }]);
    expect(returnedRows([])).toEqual([]);
  });

  it('runs the SQL with its parameters and answers the rows', async () => {
    const query = jest.fn().mockResolvedValue([[{ id: 'a' }], 1]);
    const db = Object.assign(Object.create(DataSource.prototype) as DataSource, { query });
    await expect(sqlRows(db, 'UPDATE t SET x = $1 RETURNING id', [5])).resolves.toEqual([{ id: 'a' }]);
    expect(query).toHaveBeenCalledWith('UPDATE t SET x = $1 RETURNING id', [5]);
  });
});

describe('isPgError', () => {
  it("recognizes PostgreSQL's code on a TypeORM query error and on a driver error", () => {
    const driverError = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    expect(isPgError(new QueryFailedError('DELETE', [], driverError), PG_ERROR.deadlockDetected)).toBe(true);
    expect(isPgError(driverError, PG_ERROR.deadlockDetected)).toBe(true);
    expect(isPgError(driverError, PG_ERROR.uniqueViolation)).toBe(false);
  });

  it('is false for anything without that code', () => {
    expect(isPgError(new Error('boom'), PG_ERROR.uniqueViolation)).toBe(false);
    expect(isPgError(null, PG_ERROR.uniqueViolation)).toBe(false);
    expect(isPgError('23505', PG_ERROR.uniqueViolation)).toBe(false);
  });
});
