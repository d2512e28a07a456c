import { randomBytes } from 'node:crypto';
import { IsString } from 'class-validator';
import { BaseConfig } from './base.config';
import { DEV_CREDENTIALS_KEYS, hasDevelopmentKey, WEBHOOKS_DEVELOPMENT_KEY } from './credentials-keys';
import { ConfigError, loadConfig } from './load-config';
import { Secret } from './secret';

const DEV_KEY = DEV_CREDENTIALS_KEYS.split(':')[1];
const random = () => randomBytes(32).toString('base64');

class KeysConfig extends BaseConfig {
  @Secret({ development: hasDevelopmentKey })
  @IsString()
  KEYS: string = DEV_CREDENTIALS_KEYS;
}

const problems = (KEYS: string) => {
  try {
    loadConfig(KeysConfig, { NODE_ENV: 'production', KEYS });
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
};

describe('development keys in production', () => {
  it('are refused however the key list names or surrounds them, without printing the key', () => {
    for (const spec of [
      `prod:${DEV_KEY}`,
      `dev:${DEV_KEY},k2:${random()}`,
      `k1:${random()},old:${DEV_KEY}`,
      DEV_KEY,
      `w:${WEBHOOKS_DEVELOPMENT_KEY.toString('base64')}`,
    ]) {
      const got = problems(spec);
      expect([spec, got]).toEqual([spec, ['KEYS: must not contain a development key in production']]);
      expect(got.join()).not.toContain(DEV_KEY);
    }
    expect(problems(DEV_CREDENTIALS_KEYS)).toEqual(['KEYS: must not be a sandbox default in production']);
  });

  it('a key list of its own keys starts, and development keeps its default', () => {
    expect(problems(`k1:${random()},k0:${random()}`)).toEqual([]);
    expect(loadConfig(KeysConfig, { NODE_ENV: 'development' }).KEYS).toBe(DEV_CREDENTIALS_KEYS);
  });
});
