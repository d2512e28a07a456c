import { APPS_RPC, CHANNELS, SUBSCRIPTIONS_RPC, Topology, WHATSAPP_RPC } from '@app/contracts';
import { natsAuth, natsInboxPrefix, withOwnInbox } from './nats-connection';
import {
  natsAuthorization,
  natsAuthorizationConfig,
  natsPermissions,
  natsUsers,
  randomNatsPasswords,
} from './nats-permissions';

describe('NATS permissions from the topology', () => {
  const t = new Topology('p1');
  const perms = natsPermissions(t);
  const publishers = (subject: string) => natsUsers().filter((u) => perms[u].publish.includes(subject));
  const subscribers = (subject: string) => natsUsers().filter((u) => perms[u].subscribe.includes(subject));

  it('lets only the api send the webhooks service its requests, and only the webhooks service take them', () => {
    for (const pattern of Object.values(SUBSCRIPTIONS_RPC)) {
      expect(publishers(t.rpc(pattern))).toEqual(['api']);
      expect(subscribers(t.rpc(pattern))).toEqual(['webhooks']);
    }
    for (const pattern of Object.values(WHATSAPP_RPC)) {
      expect(publishers(t.rpc(pattern))).toEqual(['api']);
      expect(subscribers(t.rpc(pattern))).toEqual(['gateway']);
    }
    for (const pattern of Object.values(APPS_RPC)) {
      expect(publishers(t.rpc(pattern))).toEqual(['gateway']);
      expect(subscribers(t.rpc(pattern))).toEqual(['api']);
    }
  });

  it("gives each channel's queue user that channel's consumers only", () => {
    for (const channel of CHANNELS) {
      const next = `$JS.API.CONSUMER.MSG.NEXT.${t.outboundStream('service')}.${t.outboundConsumer('service', channel)}`;
      expect(publishers(next).sort()).toEqual(['queue', `queue_${channel}`].sort());
    }
  });

  it('lets only the queue users erase a dead-lettered work item from the outbound streams', () => {
    for (const priority of ['service', 'marketing'] as const) {
      const erase = `$JS.API.STREAM.MSG.DELETE.${t.outboundStream(priority)}`;
      expect(publishers(erase).sort()).toEqual(['queue', ...CHANNELS.map((c) => `queue_${c}`)].sort());
    }
    expect(publishers(`$JS.API.STREAM.MSG.DELETE.${t.stream('events')}`)).toEqual([]);
  });

  it('keeps every subject under the prefix, and the JetStream API whole for the setup user only', () => {
    for (const user of natsUsers()) {
      for (const s of [...perms[user].publish, ...perms[user].subscribe]) {
        expect(s.startsWith('p1.') || s.startsWith('$')).toBe(true);
      }
    }
    expect(publishers('$JS.API.>')).toEqual(['setup']);
  });

  it("lets each user read its own inbox only, the one its connections reply to, never another's or _INBOX.>", () => {
    const inboxes = (user: string) => perms[user as keyof typeof perms].subscribe.filter((s) => s.includes('_INBOX'));
    for (const user of natsUsers()) {
      const own = withOwnInbox({ user, pass: 'x' }, 'p1').inboxPrefix;
      expect(own).toBe(`p1._INBOX.${user}`);
      expect(inboxes(user)).toEqual([`${own}.>`]);
    }
    // Unprefixed, the inboxes lie under the shared `_INBOX.` of the clients before them.
    expect(natsInboxPrefix(new Topology(), 'queue_max')).toBe('_INBOX.queue_max');
    // A client without a user (no authorization) keeps the library's own inbox.
    expect(withOwnInbox({}, 'p1')).toEqual({});
  });

  it('allows the shared inbox again only in the authorization of a roll from before per-user inboxes', () => {
    const shared = (sharedInbox: boolean) =>
      natsAuthorization(t, undefined, { sharedInbox }).users.filter((u) =>
        u.permissions.subscribe.allow.includes('_INBOX.>'),
      );
    expect(shared(false)).toEqual([]);
    expect(shared(true).map((u) => u.user)).toEqual(natsUsers());
  });

  it('writes password variables, never passwords, into the server configuration', () => {
    const conf = natsAuthorizationConfig(t);
    expect(conf).toContain('password: $NATS_PASSWORD_API');
    expect(conf).toContain('password: $NATS_PASSWORD_QUEUE_WHATSAPP');
    expect(conf.match(/user: /g)).toHaveLength(natsUsers().length);
  });

  it('reads the credentials of the process from NATS_USER and NATS_PASSWORD', () => {
    expect(natsAuth({ NATS_USER: 'api', NATS_PASSWORD: 'x'.repeat(20) })).toEqual({
      user: 'api',
      pass: 'x'.repeat(20),
    });
    expect(natsAuth({})).toEqual({});
  });

  it('generated passwords always start with a letter, so nats-server reads them as strings (a leading digit or - is lexed as a number)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) {
      for (const password of Object.values(randomNatsPasswords())) {
        expect(password).toMatch(/^p[0-9a-f]{48}$/);
        seen.add(password);
      }
    }
    expect(seen.size).toBe(500 * natsUsers().length);
  });
});
