import { Topology } from './topology';

describe('Topology: a status waiting in INBOUND', () => {
  it.each([new Topology(), new Topology('t1')])(
    'reads back the ordering token of its own status subjects only',
    (t) => {
      const subject = t.inboundStatusSubject('whatsapp', 'Ab_9-x');
      expect(t.inboundStatusTokenOf('whatsapp', subject)).toBe('Ab_9-x');
      expect(t.inboundStatusTokenOf('whatsapp', t.inboundSubject('whatsapp'))).toBeUndefined();
      expect(t.inboundStatusTokenOf('whatsapp', t.inboundSignalSubject('whatsapp'))).toBeUndefined();
      expect(t.inboundStatusTokenOf('whatsapp', `${subject}.more`)).toBeUndefined();
      expect(t.inboundStatusTokenOf('whatsapp', t.inboundStatusWildcard('whatsapp').slice(0, -1))).toBeUndefined();
      expect(
        t.inboundStatusTokenOf('whatsapp', new Topology('other').inboundStatusSubject('whatsapp', 'k')),
      ).toBeUndefined();
      expect(() => t.inboundStatusSubject('whatsapp', 'a.b')).toThrow();
    },
  );
});
