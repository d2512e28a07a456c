import { ConfigError, loadConfig } from '@app/config';
import { parseDurations, WebhooksConfig } from './config';

describe('webhooks configuration', () => {
  it('reads the retry schedule in ms or with units, defaulting to 5s,5m,30m,2h,5h,10h,10h', () => {
    expect(parseDurations('5s,5m,30m,2h,5h,10h,10h')).toEqual([
      5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(parseDurations('100, 250ms,1.5s,1d')).toEqual([100, 250, 1500, 86_400_000]);
    const defaults = loadConfig(WebhooksConfig, {});
    expect(defaults.retryScheduleMs).toEqual([5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(defaults.WEBHOOK_TIMEOUT_MS).toBe(15_000);
    expect(defaults.WEBHOOK_DISABLE_AFTER_MS).toBe(5 * 24 * 3600 * 1000);
  });

  it('refuses a malformed schedule, naming the variable', () => {
    for (const bad of ['', '5x', '5s,,5m', '-5s', '0', 'soon']) expect(parseDurations(bad)).toBeNull();
    expect(() => loadConfig(WebhooksConfig, { WEBHOOK_RETRY_SCHEDULE: '5s,later' })).toThrow(ConfigError);
    expect(() => loadConfig(WebhooksConfig, { WEBHOOK_RETRY_SCHEDULE: '5s,later' })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => loadConfig(WebhooksConfig, { WEBHOOK_TIMEOUT_MS: 'abc' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
  });

  it('refuses to start in production without the keys that seal signing secrets', () => {
    expect(() => loadConfig(WebhooksConfig, { NODE_ENV: 'production' })).toThrow(
      /WEBHOOK_SECRET_KEYS must be set in production/,
    );
    const key = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
    expect(loadConfig(WebhooksConfig, { NODE_ENV: 'production', WEBHOOK_SECRET_KEYS: key }).WEBHOOK_SECRET_KEYS).toBe(
      key,
    );
    expect(loadConfig(WebhooksConfig, { NODE_ENV: 'development' }).WEBHOOK_SECRET_KEYS).toBeUndefined();
  });
});
