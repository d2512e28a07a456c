import 'reflect-metadata';

/**
 * The values the local stack and the sandbox use for the channel's secrets. They are in the
 * source, so in production a secret equal to any of them is as good as none.
 */
export const SANDBOX_SECRETS = {
  whatsappAppSecret: 'sandbox-app-secret',
  whatsappVerifyToken: 'sandbox-verify-token',
  whatsappAccessToken: 'sandbox-access-token',
  whatsappTwoStepPin: '000000',
} as const;

const SECRETS = Symbol('config:secrets');

interface SecretEntry {
  name: string;
  /** Only then is the secret needed (a queue replica that does not deliver WhatsApp needs no token). */
  when?: (config: never) => boolean;
  /** True for a value that holds a published development key, whatever else it holds. */
  development?: (value: unknown) => boolean;
}

/**
 * Marks a configuration property as a secret: with NODE_ENV=production it must be set explicitly
 * in the environment and differ from every sandbox default and from its own default, or the
 * service does not start. `development` also refuses a value that merely contains a published
 * development key (a key list with the key renamed, or beside another). Errors name the variable,
 * never its value.
 */
export function Secret<C>(
  opts: { when?: (config: C) => boolean; development?: (value: unknown) => boolean } = {},
): PropertyDecorator {
  return (target, property) => {
    const ctor = target.constructor;
    const own: SecretEntry[] = Reflect.getOwnMetadata(SECRETS, ctor) ?? [...secretEntries(ctor)];
    own.push({ name: String(property), when: opts.when as SecretEntry['when'], development: opts.development });
    Reflect.defineMetadata(SECRETS, own, ctor);
  };
}

function secretEntries(cls: object): SecretEntry[] {
  return (Reflect.getMetadata(SECRETS, cls) as SecretEntry[] | undefined) ?? [];
}

/** The secret variables of a configuration class, its parents' included. */
export function secretVariables(cls: object): string[] {
  return secretEntries(cls).map((e) => e.name);
}

/**
 * Problems with the secrets of a production configuration: each names a variable that is unset,
 * left at its default, or equal to a sandbox default.
 */
export function productionSecretProblems(
  cls: new () => object,
  config: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): string[] {
  const defaults = new cls() as Record<string, unknown>;
  const problems: string[] = [];
  for (const { name, when, development } of secretEntries(cls)) {
    if (when && !when(config as never)) continue;
    const problem = productionSecretProblem(name, config[name], defaults[name], env, development);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** What is wrong with one secret of a production configuration, or undefined when nothing is. */
export function productionSecretProblem(
  name: string,
  value: unknown,
  defaultValue: unknown,
  env: NodeJS.ProcessEnv,
  development?: (value: unknown) => boolean,
): string | undefined {
  if (env[name] === undefined || env[name] === '') return `${name}: must be set explicitly in production`;
  const sandbox = new Set<unknown>(Object.values(SANDBOX_SECRETS));
  if (sandbox.has(value) || (defaultValue !== undefined && value === defaultValue)) {
    return `${name}: must not be a sandbox default in production`;
  }
  if (development?.(value)) return `${name}: must not contain a development key in production`;
  return undefined;
}
