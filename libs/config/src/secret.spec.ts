import { IsString, MinLength } from 'class-validator';
import { BaseConfig } from './base.config';
import { ConfigError, loadConfig } from './load-config';
import { SANDBOX_SECRETS, Secret, secretVariables } from './secret';

class ExampleConfig extends BaseConfig {
  @Secret()
  @IsString()
  @MinLength(8)
  CHANNEL_SECRET: string = SANDBOX_SECRETS.whatsappAppSecret;

  @Secret()
  @IsString()
  SIGNING_KEY: string = 'local-signing-key';
}

class ConditionalConfig extends BaseConfig {
  @IsString()
  FEATURES: string = 'a,b';

  @Secret({ when: (c: ConditionalConfig) => c.FEATURES.split(',').includes('b') })
  @IsString()
  B_TOKEN: string = 'b-default';
}

class ChildConfig extends ExampleConfig {
  @Secret()
  @IsString()
  CHILD_TOKEN: string = 'child-default';
}

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(ExampleConfig, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('secret variables', () => {
  it('outside production the sandbox defaults apply', () => {
    expect(loadConfig(ExampleConfig, { NODE_ENV: 'development' }).CHANNEL_SECRET).toBe('sandbox-app-secret');
  });

  it('in production an unset secret stops the start, naming the variable', () => {
    expect(problems({ NODE_ENV: 'production' })).toEqual([
      'CHANNEL_SECRET: must be set explicitly in production',
      'SIGNING_KEY: must be set explicitly in production',
    ]);
  });

  it('in production a secret equal to any sandbox default or to its own default is refused without printing it', () => {
    const got = problems({
      NODE_ENV: 'production',
      CHANNEL_SECRET: SANDBOX_SECRETS.whatsappAccessToken,
      SIGNING_KEY: 'local-signing-key',
    });
    expect(got).toEqual([
      'CHANNEL_SECRET: must not be a sandbox default in production',
      'SIGNING_KEY: must not be a sandbox default in production',
    ]);
    expect(got.join('\n')).not.toMatch(/sandbox-access-token|local-signing-key/);
  });

  it('in production explicit, distinct secrets start', () => {
    const c = loadConfig(ExampleConfig, { NODE_ENV: 'production', CHANNEL_SECRET: 'a'.repeat(40), SIGNING_KEY: 'k1' });
    expect(c.CHANNEL_SECRET).toBe('a'.repeat(40));
  });

  it('a subclass keeps its parent’s secrets and adds its own', () => {
    expect(secretVariables(ChildConfig)).toEqual(['CHANNEL_SECRET', 'SIGNING_KEY', 'CHILD_TOKEN']);
    expect(secretVariables(ExampleConfig)).toEqual(['CHANNEL_SECRET', 'SIGNING_KEY']);
  });

  it('a conditional secret is needed only when its condition holds', () => {
    expect(() => loadConfig(ConditionalConfig, { NODE_ENV: 'production' })).toThrow(/B_TOKEN: must be set/);
    expect(loadConfig(ConditionalConfig, { NODE_ENV: 'production', FEATURES: 'a' }).B_TOKEN).toBe('b-default');
  });

  it('a bad value is named by its variable, never printed', () => {
    const got = problems({ NODE_ENV: 'development', CHANNEL_SECRET: 'short-1' });
    expect(got).toEqual([expect.stringMatching(/^CHANNEL_SECRET: /)]);
    expect(got.join('\n')).not.toContain('short-1');
    expect(() => loadConfig(ExampleConfig, { SHUTDOWN_TIMEOUT_MS: '99999999' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('99999999') }),
    );
  });
});
