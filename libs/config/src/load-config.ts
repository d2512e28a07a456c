import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { loadChannelModules } from './channel-modules';
import { ChannelSettingsClass, channelSettingsProblems } from './channel-settings';
import { productionSecretProblems } from './secret';

/** Raised when the environment does not satisfy a service's configuration class. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const name = parent ? `${parent}.${e.property}` : e.property;
    // The value is never printed: it may be a secret, and logs outlive the mistake.
    const own = Object.values(e.constraints ?? {}).map((m) => `${name}: ${m}`);
    return [...own, ...flatten(e.children ?? [], name)];
  });
}

/**
 * Builds a typed configuration object from the environment and validates it. Each property of
 * the class is named after its environment variable; class-transformer converts the strings.
 */
export function loadConfig<T extends object>(cls: new () => T, env: NodeJS.ProcessEnv = process.env): T {
  // A service that reads channel settings first loads the channels added at start, whose settings it validates too.
  if ((cls as ChannelSettingsClass).channelService) loadChannelModules(env);
  const plain: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') plain[k] = v;
  const config = plainToInstance(cls, plain, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: false });
  const problems = [...flatten(errors), ...channelSettingsProblems(config, env)];
  if ((config as { NODE_ENV?: unknown }).NODE_ENV === 'production') {
    problems.push(...productionSecretProblems(cls, config as Record<string, unknown>, env));
  }
  if (problems.length) throw new ConfigError(problems);
  return config;
}
