import type { AppEntity } from '../../apps/api/src/wa-apps/app.entity';

/**
 * Registers an app's connected number with the sandbox's WhatsApp emulator, so its callbacks
 * carry the app's WABA (as the real channel's would after onboarding).
 */
export async function registerSandboxNumber(sandboxUrl: string, app: AppEntity): Promise<void> {
  const res = await fetch(`${sandboxUrl}/_sandbox/whatsapp/phone_numbers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone_number_id: app.phoneNumberId, waba_id: app.wabaId, display_phone_number: app.phone }),
  });
  if (res.status >= 300) throw new Error(`the sandbox refused the number: ${res.status} ${await res.text()}`);
}

/** A WhatsApp webhook as the sandbox's log shows it (`GET /_sandbox/whatsapp/webhooks`). */
/** Registers a bot with the sandbox's Telegram or MAX emulator; its id and token. */
export async function registerSandboxBot(
  sandboxUrl: string,
  channel: 'telegram' | 'max',
): Promise<{ id: number; token: string }> {
  const res = await fetch(`${sandboxUrl}/_sandbox/${channel}/bots`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  if (res.status !== 201) throw new Error(`sandbox bot not registered: ${res.status}`);
  return (await res.json()) as { id: number; token: string };
}

export interface LoggedWebhook {
  field: string;
  attempts: number;
  status: number | null;
  delivered: boolean;
  next_attempt_at: number | null;
  payload: { entry: { changes: { value: { statuses?: unknown[] } }[] }[] };
}

/** The sandbox's log of the WhatsApp webhooks it sent. */
export async function sandboxWebhooks(sandboxUrl: string): Promise<LoggedWebhook[]> {
  return (await (await fetch(`${sandboxUrl}/_sandbox/whatsapp/webhooks`)).json()) as LoggedWebhook[];
}

/** How many statuses a logged webhook carries: several when the sandbox gathered them. */
export function statusesCarried(webhook: LoggedWebhook): number {
  return webhook.payload.entry.reduce(
    (n, e) => n + e.changes.reduce((m, c) => m + (c.value.statuses?.length ?? 0), 0),
    0,
  );
}

/**
 * One call to the sandbox's control API (`/_sandbox/<path>`): a GET without a body, a POST with
 * one (or `method`); its status and JSON answer (null when it has none).
 */
export async function sandboxControl<T = unknown>(
  sandboxUrl: string,
  path: string,
  body?: unknown,
  method?: string,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sandboxUrl}/_sandbox/${path}`, {
    method: method ?? (body === undefined ? 'GET' : 'POST'),
    ...(body !== undefined ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** A sandbox control call that must succeed: its JSON answer, or an error naming the path and answer. */
export async function sandboxOk<T = unknown>(sandboxUrl: string, path: string, body?: unknown): Promise<T> {
  const res = await sandboxControl<T>(sandboxUrl, path, body);
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
