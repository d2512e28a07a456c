import { Command } from 'commander';
import { AppEntity, MESSAGE_LIMITS, MessageLimit } from '../wa-apps/app.entity';
import { UsageError } from '@app/config';
import { Run } from './admin.commands';

/** Tiers a command may set: every label of an app's message_limit but "not set". */
const SETTABLE_TIERS = MESSAGE_LIMITS.filter((t) => t !== 'TIER_NOT_SET');
/** How long the channel's callback may take to reach the app (sandbox, gateway, api). */
const APPLY_WAIT_MS = 30_000;

/** A connected number as the sandbox's WhatsApp emulator is told of it. */
export interface SandboxNumber {
  phone_number_id: string;
  waba_id: string;
  phone: string;
  message_limit: string;
}

async function sandboxPost(sandboxUrl: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${sandboxUrl}/_sandbox/whatsapp/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/**
 * Tells the sandbox of a number connected through the api (it forgets its numbers when it restarts),
 * at the tier the app has, so that its callbacks carry the business account and its tier answers
 * agree with the app.
 */
export async function registerSandboxNumber(sandboxUrl: string, n: SandboxNumber): Promise<void> {
  const res = await sandboxPost(sandboxUrl, 'phone_numbers', {
    phone_number_id: n.phone_number_id,
    waba_id: n.waba_id,
    display_phone_number: `+${n.phone}`,
    ...(n.message_limit === 'TIER_NOT_SET' ? {} : { messaging_limit_tier: n.message_limit }),
  });
  if (!res.ok) throw new Error(`the sandbox refused the number: ${res.status} ${await res.text()}`);
}

/** Operator commands that act as the WhatsApp channel of the local stack's sandbox. */
export function registerSandboxCommands(program: Command, run: Run, sandboxUrl: () => string): void {
  program
    .command('sandbox:tier')
    .description(
      "raise (or lower) an app's WhatsApp messaging tier as the channel does: the sandbox sends the tier webhook, and the command waits until the app shows it",
    )
    .requiredOption('--app <id>', 'app id')
    .requiredOption('--tier <tier>', SETTABLE_TIERS.join(', '))
    .option('--json', 'print one JSON object')
    .action(async (o: { app: string; tier: string; json?: boolean }) => {
      if (!/^[1-9]\d{0,9}$/.test(o.app)) throw new UsageError('--app must be an app id (a positive number)');
      if (!(SETTABLE_TIERS as readonly string[]).includes(o.tier)) {
        throw new UsageError(`--tier must be one of ${SETTABLE_TIERS.join(', ')}`);
      }
      const tier = o.tier as MessageLimit;
      const url = sandboxUrl();
      await run(async (ds) => {
        const apps = ds.getRepository(AppEntity);
        const read = () => apps.findOneBy({ id: Number(o.app) });
        const app = await read();
        if (!app) throw new UsageError(`no app ${o.app}`);
        if (!app.phoneNumberId || !app.wabaId || !app.phone) throw new UsageError(`app ${o.app} has no number yet`);
        const signal = () =>
          sandboxPost(url, 'signals', { phone_number_id: app.phoneNumberId, kind: 'limit', value: tier });
        let res = await signal();
        if (res.status === 404) {
          await registerSandboxNumber(url, {
            phone_number_id: app.phoneNumberId,
            waba_id: app.wabaId,
            phone: app.phone,
            message_limit: app.messageLimit,
          });
          res = await signal();
        }
        if (!res.ok) throw new Error(`the sandbox refused the tier: ${res.status} ${await res.text()}`);
        const until = performance.now() + APPLY_WAIT_MS;
        for (;;) {
          const now = await read();
          if (now?.messageLimit === tier) break;
          if (performance.now() > until) {
            throw new Error(
              `the sandbox sent the tier, but app ${o.app} still shows ${now?.messageLimit} after ${APPLY_WAIT_MS / 1000} s: are the gateway and the api running (they apply the channel's callback)?`,
            );
          }
          await new Promise((r) => setTimeout(r, 200));
        }
        return { app_id: app.id, phone_number_id: app.phoneNumberId, message_limit: tier };
      }, !!o.json);
    });
}
