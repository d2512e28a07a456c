import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';

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
    const own = Object.values(e.constraints ?? {}).map((m) => `${name}: ${m} (got ${JSON.stringify(e.value)})`);
    return [...own, ...flatten(e.children ?? [], name)];
  });
}

/**
 * Builds a typed configuration object from the environment and validates it. Each property of
 * the class is named after its environment variable; class-transformer converts the strings.
 */
export function loadConfig<T extends object>(cls: new () => T, env: NodeJS.ProcessEnv = process.env): T {
  const plain: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') plain[k] = v;
  const config = plainToInstance(cls, plain, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(config, { whitelist: false, forbidUnknownValues: false });
  if (errors.length) throw new ConfigError(flatten(errors));
  return config;
}
