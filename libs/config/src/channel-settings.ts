import { isURL } from 'class-validator';
import {
  ChannelRegistration,
  ChannelService,
  ChannelSetting,
  ChannelSettings,
  ChannelSettingValues,
  forService,
  registeredChannels,
  settingsFor,
} from '@app/contracts';
import { productionSecretProblem } from './secret';

/**
 * A configuration class whose service reads channel settings: `channelService` names the service,
 * and `servesChannel` (absent: every channel) the channels it serves, whose secrets production requires.
 */
export interface ChannelSettingsReader {
  servesChannel?(channel: string): boolean;
}

export type ChannelSettingsClass = { readonly channelService?: ChannelService };

type Read = { value: string | number } | { problem: string };

function bounds(s: Extract<ChannelSetting, { min: unknown }>, service: ChannelService): [number, number] {
  return [forService(s.min, service) ?? -Infinity, forService(s.max, service) ?? Infinity];
}

/** One setting's value in one service: what the environment gives (as a string or a number), or its default. */
function readSetting(s: ChannelSetting, raw: unknown, service: ChannelService): Read {
  const fallback = forService<string | number>(s.default, service);
  if (raw === undefined || raw === '') {
    return fallback === undefined ? { problem: `${s.env}: must be set` } : { value: fallback };
  }
  const text = String(raw);
  switch (s.type) {
    case 'url':
      return isURL(text, { require_tld: false, protocols: ['http', 'https'] })
        ? { value: text }
        : { problem: `${s.env}: must be an http or https URL` };
    case 'text':
      if (s.minLength !== undefined && text.length < s.minLength) {
        return { problem: `${s.env}: must be at least ${s.minLength} characters` };
      }
      if (s.pattern && !s.pattern.regex.test(text)) return { problem: `${s.env}: ${s.pattern.hint}` };
      return { value: text };
    default: {
      const n = Number(text);
      const [min, max] = bounds(s, service);
      const whole = s.type === 'int';
      if (!Number.isFinite(n) || (whole && !Number.isInteger(n)) || n < min || n > max) {
        return { problem: `${s.env}: must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}` };
      }
      return { value: n };
    }
  }
}

function serviceOf(config: object): ChannelService {
  const service = (config.constructor as ChannelSettingsClass).channelService;
  if (!service) throw new Error(`${config.constructor.name} reads no channel settings (no static channelService)`);
  return service;
}

/**
 * The settings a service reads for one channel, from its validated configuration: each variable's
 * value, or its declared default for this service.
 */
export function channelSettings<S extends ChannelSettings>(
  config: object,
  reg: ChannelRegistration<S>,
): ChannelSettingValues<S> {
  const service = serviceOf(config);
  const source = config as Record<string, unknown>;
  const values: Record<string, string | number> = {};
  for (const [key, setting] of settingsFor(reg, service)) {
    const read = readSetting(setting, source[setting.env], service);
    if ('problem' in read) throw new Error(read.problem);
    values[key] = read.value;
  }
  return values as ChannelSettingValues<S>;
}

/**
 * Problems with the channel settings of a configuration about to be used: every variable a
 * registered channel declares for the service is checked once (two channels may share one), and in
 * production the secrets of the channels the service serves must be set and not the sandbox's.
 */
export function channelSettingsProblems(config: object, env: NodeJS.ProcessEnv): string[] {
  const service = (config.constructor as ChannelSettingsClass).channelService;
  if (!service) return [];
  const source = config as Record<string, unknown> & ChannelSettingsReader & { NODE_ENV?: unknown };
  const problems = new Set<string>();
  for (const reg of registeredChannels()) {
    const served = source.servesChannel?.(reg.name) ?? true;
    for (const [, setting] of settingsFor(reg, service)) {
      const read = readSetting(setting, source[setting.env], service);
      if ('problem' in read) problems.add(read.problem);
      if (setting.type !== 'text' || !setting.secret || !served || source.NODE_ENV !== 'production') continue;
      const problem = productionSecretProblem(
        setting.env,
        source[setting.env],
        forService(setting.default, service),
        env,
      );
      if (problem) problems.add(problem);
    }
  }
  return [...problems];
}
