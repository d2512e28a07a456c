/** A command-line mistake: printed without a stack, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requireUuid(flag: string, value: string | undefined): string {
  if (!value || !UUID.test(value))
    throw new UsageError(`${flag} must be a UUID (got ${JSON.stringify(value ?? null)})`);
  return value.toLowerCase();
}

export function requireText(flag: string, value: string | undefined, max = 150): string {
  const v = value?.trim();
  if (!v || v.length > max) throw new UsageError(`${flag} must be 1 to ${max} characters`);
  return v;
}

/** A positive amount with at most 4 decimals (money). */
export function requireAmount(flag: string, value: string | undefined): number {
  if (!value || !/^\d{1,12}(\.\d{1,4})?$/.test(value) || Number(value) <= 0) {
    throw new UsageError(
      `${flag} must be a positive amount with at most 4 decimals (got ${JSON.stringify(value ?? null)})`,
    );
  }
  return Number(value);
}

/** Prints a result: one JSON object with --json, else `key: value` lines. */
export function printResult(result: Record<string, unknown>, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  for (const [k, v] of Object.entries(result))
    process.stdout.write(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
}
