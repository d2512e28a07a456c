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
