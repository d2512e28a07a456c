import { classifyBotFailure } from './bot-failure';

describe('bot channel failure classification', () => {
  it('fails the message for good when the recipient blocked the bot or does not exist', () => {
    expect(classifyBotFailure({ status: 403, description: 'blocked', recipient: 'blocked' })).toMatchObject({
      retryable: false,
      scope: 'message',
      code: 'recipient_blocked',
    });
    expect(classifyBotFailure({ status: 400, description: 'chat not found', recipient: 'not_found' })).toMatchObject({
      retryable: false,
      code: 'recipient_not_found',
    });
  });

  it('pauses only the sender on 429, for the time the channel asked', () => {
    expect(classifyBotFailure({ status: 429, description: 'Too Many Requests', retryAfterMs: 7000 })).toMatchObject({
      retryable: true,
      scope: 'sender',
      retryAfterMs: 7000,
    });
    expect(classifyBotFailure({ status: 429, description: 'Too Many Requests' })).toMatchObject({
      scope: 'sender',
      retryAfterMs: 1000,
    });
  });

  it('backs the channel off on 5xx and on no answer, marking a timeout as outcome unknown', () => {
    expect(classifyBotFailure({ status: 502, description: 'Bad Gateway' })).toMatchObject({
      retryable: true,
      scope: 'channel',
      code: 'channel_error',
    });
    expect(classifyBotFailure({ status: null, description: 'timed out', timedOut: true })).toMatchObject({
      retryable: true,
      scope: 'channel',
      outcomeUnknown: true,
    });
    expect(classifyBotFailure({ status: null, description: 'ECONNREFUSED' })).toMatchObject({
      retryable: true,
      outcomeUnknown: false,
    });
  });

  it('fails the message on a refused token and on any other 4xx', () => {
    expect(classifyBotFailure({ status: 401, description: 'Unauthorized' })).toMatchObject({
      retryable: false,
      code: 'sender_unauthorized',
    });
    expect(classifyBotFailure({ status: 400, description: "can't parse entities" })).toMatchObject({
      retryable: false,
      code: 'rejected',
    });
  });

  it('retries only this message, after a pause, while the channel still processes its attachment', () => {
    expect(classifyBotFailure({ status: 400, description: 'attachment.not.ready', notReady: true })).toMatchObject({
      retryable: true,
      scope: 'message',
      code: 'attachment_not_ready',
      retryAfterMs: 1000,
    });
  });
});
