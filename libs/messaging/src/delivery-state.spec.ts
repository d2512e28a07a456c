import {
  decodeDeliveryState,
  deliveryStateBucket,
  deliveryStateKey,
  DeliveryState,
  encodeDeliveryState,
} from './delivery-state';
import { Topology } from '@app/contracts';

describe('delivery state encoding', () => {
  const states: DeliveryState[] = [
    { status: 'sending', since: 1763700000123 },
    { status: 'sent', providerMessageId: 'wamid.HBgLNzk5OTAwMDExMjIVAgARGBI=' },
    { status: 'observed', providerMessageId: 'wamid.abc:def' },
    { status: 'rejected', code: 'http_500' },
    { status: 'failed', code: '131026', title: 'Message undeliverable' },
  ];

  it.each(states)('round-trips %j', (s) => {
    expect(decodeDeliveryState(encodeDeliveryState(s))).toEqual(s);
  });

  it('uses the documented text format that the gateway writes too', () => {
    expect(encodeDeliveryState({ status: 'observed', providerMessageId: 'wamid.1' })).toBe('observed:wamid.1');
    expect(encodeDeliveryState({ status: 'sending', since: 5 })).toBe('sending:5');
  });

  it('reads unknown or damaged values as nothing known', () => {
    expect(decodeDeliveryState('')).toBeNull();
    expect(decodeDeliveryState('sending:soon')).toBeNull();
    expect(decodeDeliveryState('whatever:1')).toBeNull();
    expect(decodeDeliveryState('sent:')).toBeNull();
  });

  it('names the bucket under the topology prefix and refuses ids that are not keys', () => {
    expect(deliveryStateBucket(new Topology('t1a2'))).toBe('T1A2_DELIVERY_STATE');
    expect(deliveryStateBucket(new Topology())).toBe('DELIVERY_STATE');
    expect(deliveryStateKey('0193a1b2-0000-7000-8000-000000000001')).toBe('0193a1b2-0000-7000-8000-000000000001');
    expect(() => deliveryStateKey('a.b>')).toThrow();
  });
});
