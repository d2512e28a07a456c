import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHANNELS, channelRegistration, GATEWAY_SEND_CHANNELS } from '@app/contracts';
import { channelSettings } from './channel-settings';
import { loadChannelModules } from './channel-modules';
import { ConfigError, loadConfig } from './load-config';

const dir = mkdtempSync(join(tmpdir(), 'channel-modules-'));
const contracts = require.resolve('@app/contracts');
const moduleFile = (name: string, body: string) => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};
const smsModule = moduleFile(
  'sms.js',
  `require(${JSON.stringify(contracts)}).registerChannel({
    name: 'sms_test', kind: 'messenger', connection: 'bot', gatewaySends: true, receipts: false, pricing: 'none',
    settings: { apiUrl: { env: 'SMS_TEST_API_URL', type: 'url', default: 'http://localhost:3999', services: ['queue'], description: 'x' } },
  });`,
);
const problemsOf = (env: NodeJS.ProcessEnv) => {
  try {
    loadChannelModules(env);
    return [];
  } catch (err) {
    return err instanceof ConfigError ? err.problems : [String(err)];
  }
};

class QueueLikeConfig {
  static readonly channelService = 'queue';
}

describe('CHANNEL_MODULES', () => {
  it('adds the channels its modules register to every list, and their settings to the service that reads them', () => {
    const config = loadConfig(QueueLikeConfig, { CHANNEL_MODULES: smsModule, SMS_TEST_API_URL: 'http://sms.test:81' });
    expect(channelRegistration('sms_test')?.kind).toBe('messenger');
    expect(CHANNELS).toContain('sms_test');
    expect(GATEWAY_SEND_CHANNELS).toContain('sms_test');
    expect(channelSettings(config, channelRegistration('sms_test')!)).toEqual({ apiUrl: 'http://sms.test:81' });
    // Loaded again (another configuration of the same process): the module is not registered twice.
    expect(problemsOf({ CHANNEL_MODULES: smsModule })).toEqual([]);
  });

  it("refuses to start on a registered channel's bad setting, naming the variable", () => {
    expect(() => loadConfig(QueueLikeConfig, { CHANNEL_MODULES: smsModule, SMS_TEST_API_URL: 'not a url' })).toThrow(
      'SMS_TEST_API_URL: must be an http or https URL',
    );
    expect(() => loadConfig(QueueLikeConfig, { QUEUE_WHATSAPP_RATE_PER_SENDER: '0' })).toThrow(
      'QUEUE_WHATSAPP_RATE_PER_SENDER: must be a whole number from 1 to 100000',
    );
  });

  it('names the variable and the module that is not absolute, cannot be loaded or registers nothing', () => {
    const nothing = moduleFile('nothing.js', 'module.exports = {};');
    const broken = moduleFile('broken.js', "throw new Error('no connector here');");
    expect(problemsOf({ CHANNEL_MODULES: `sms.js,${join(dir, 'missing.js')},${broken},${nothing}` })).toEqual([
      'CHANNEL_MODULES: sms.js is not an absolute path',
      expect.stringMatching(
        new RegExp(`^CHANNEL_MODULES: ${join(dir, 'missing.js')} cannot be loaded: .*Cannot find module`),
      ),
      `CHANNEL_MODULES: ${broken} cannot be loaded: no connector here`,
      `CHANNEL_MODULES: ${nothing} registers no channel (it must call registerChannel when loaded)`,
    ]);
  });
});
