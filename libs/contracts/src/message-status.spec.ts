import { advancesStatus, MESSAGE_STATUSES, statusRank } from './events';

describe('message status lifecycle', () => {
  it('moves forward only: QUEUED, SENT, DELIVERED, then READ or FAILED, both final', () => {
    const forward = MESSAGE_STATUSES.flatMap((from) =>
      MESSAGE_STATUSES.filter((to) => advancesStatus(from, to)).map((to) => `${from}>${to}`),
    );
    expect(forward.sort()).toEqual(
      [
        'QUEUED>SENT',
        'QUEUED>DELIVERED',
        'QUEUED>READ',
        'QUEUED>FAILED',
        'SENT>DELIVERED',
        'SENT>READ',
        'SENT>FAILED',
        'DELIVERED>READ',
        'DELIVERED>FAILED',
      ].sort(),
    );
  });

  it('ranks a status by its place in the lifecycle', () => {
    expect(MESSAGE_STATUSES.map(statusRank)).toEqual([0, 1, 2, 3, 3]);
  });
});
