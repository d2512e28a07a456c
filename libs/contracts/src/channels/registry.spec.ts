import { validateSync } from 'class-validator';
import { IsRegisteredChannel } from './is-registered-channel';
import {
  channelNames,
  channelSendRates,
  GATEWAY_SEND_CHANNELS,
  RECEIPTLESS_CHANNELS,
  registerChannel,
  sendRecipient,
  sendsFromGateway,
} from './registry';
import { CHANNELS } from './registry';

class SendDto {
  @IsRegisteredChannel(sendsFromGateway)
  channel: string;
}
const errorsOf = (channel: string) =>
  validateSync(Object.assign(new SendDto(), { channel })).flatMap((e) => Object.values(e.constraints ?? {}));

describe('the channel registry', () => {
  it('derives the lists every service used to spell out', () => {
    expect(CHANNELS).toEqual(['whatsapp', 'telegram', 'max', 'course']);
    expect(GATEWAY_SEND_CHANNELS).toEqual(['whatsapp', 'telegram', 'max']);
    expect(RECEIPTLESS_CHANNELS).toEqual(['telegram', 'max']);
    expect(channelSendRates()).toEqual({ whatsapp: 80, telegram: 30, max: 30 });
  });

  it("reads a send's recipient by the kinds its registration sends to, in its words", () => {
    expect(sendRecipient('whatsapp').kinds.map((k) => k.kind)).toEqual(['phone']);
    expect(sendRecipient('telegram')).toMatchObject({
      message: 'to must be a Telegram chat id (an integer) or a public channel username (@name)',
    });
    expect(sendRecipient('telegram').kinds.map((k) => k.kind)).toEqual(['chat_id', 'username']);
    expect(sendRecipient('max').message).toBe('to must be a MAX user or chat id (an integer)');
  });

  it('accepts a channel registered later in every list and validation taken before', () => {
    const before = channelNames(sendsFromGateway);
    expect(errorsOf('viber_test')).toEqual(['channel must be one of the following values: whatsapp, telegram, max']);
    registerChannel({
      name: 'viber_test',
      kind: 'messenger',
      connection: 'bot',
      gatewaySends: true,
      receipts: true,
      pricing: 'none',
      settings: {},
    });
    expect(before).toContain('viber_test');
    expect(CHANNELS).toContain('viber_test');
    expect(RECEIPTLESS_CHANNELS).not.toContain('viber_test');
    expect(errorsOf('viber_test')).toEqual([]);
    expect(errorsOf('course')).toHaveLength(1);
  });

  it('refuses a registration that clashes or does not hold together, saying why', () => {
    expect(() => registerChannel({ ...bad, name: 'whatsapp' })).toThrow(
      'channel "whatsapp" cannot be registered: it is already registered',
    );
    expect(() => registerChannel({ ...bad, name: 'x' })).toThrow('its name must be 2 to 32 lower-case letters');
    expect(() =>
      registerChannel({
        ...bad,
        settings: {
          url: { env: 'TELEGRAM_API_URL', type: 'url', default: 'http://a', services: ['queue'], description: '' },
        },
      }),
    ).toThrow('TELEGRAM_API_URL is already a setting of telegram');
    expect(() => registerChannel({ ...bad, pacing: { settings: { rate: 'nope', campaignRate: 'nope' } } })).toThrow(
      'its pacing rate names "nope", which is not a number setting of it',
    );
  });
});

const bad = {
  name: 'bad_test',
  kind: 'messenger',
  connection: 'bot',
  gatewaySends: true,
  receipts: true,
  pricing: 'none',
  settings: {},
} as const;
