import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@app/testing';
import { gatewayAccount } from '../support/campaigns';
import { ApiFactory } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxBot, registerSandboxNumber } from '../support/sandbox';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

/** The README's SDK example, file by file (`// send.mjs`, `// send.cjs`), exactly as written there. */
function readmeExamples(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```js\n(\/\/ (send\.[cm]js)[^\n]*\n[\s\S]*?)```/g)];
  return new Map(blocks.map((m) => [m[2], m[1]]));
}

/**
 * What a client app does with the SDK's helpers, run from the installed package (ESM): a CSV import
 * uploaded from its file, an NDJSON one from a stream, each awaited until it ends; a campaign to the
 * imported list estimated, launched, awaited until it ends, and its report read page by page.
 */
const HELPERS = `
import { createReadStream, writeFileSync } from 'node:fs';
import { createGatewayClient } from '@messaging-platform/sdk';

const gateway = createGatewayClient({ baseUrl: process.env.GATEWAY_URL, token: process.env.GATEWAY_TOKEN });
const rows = ['external_id,name,telegram,lists'];
for (let i = 1; i <= 5; i++) rows.push(\`pkg-\${i},Reader \${i},\${810000 + i},readers\`);
writeFileSync('contacts.csv', rows.join('\\n') + '\\n');
writeFileSync('more.ndjson', JSON.stringify({ external_id: 'pkg-6', name: 'Reader 6', identities: { telegram: '810006' }, lists: ['readers'] }) + '\\n' + JSON.stringify({ name: 'Nobody' }) + '\\n');

const csv = await gateway.contacts.waitForImport((await gateway.contacts.importFile('contacts.csv')).id, { intervalMs: 100 });
const started = await gateway.contacts.importStream(createReadStream('more.ndjson'), { format: 'ndjson' });
const ndjson = await gateway.contacts.waitForImport(started.id, { intervalMs: 100 });
const rejections = [];
for await (const r of gateway.contacts.rejections(started.id)) rejections.push(r);

const draft = await gateway.campaigns.create({
  name: 'Readers', template: 'order_update', language: 'en', params: ['{{contact.name}}', '{{contact.external_id}}'],
  audience: { list: 'readers' }, channels: ['telegram'],
});
const estimate = await gateway.campaigns.estimate(draft.id);
await gateway.campaigns.launch(draft.id);
const ended = await gateway.campaigns.waitForEnd(draft.id, { intervalMs: 100 });
const recipients = [];
for await (const r of gateway.campaigns.recipients(draft.id, { limit: '2' })) recipients.push(r);
console.log(JSON.stringify({ csv, ndjson, rejections, estimate, ended, recipients }));
`;

/** A client app in both module systems, type-checked against the package's own declarations. */
const TYPED: Record<string, string> = {
  'typed.mts': `import { createGatewayClient, type Campaign, type ContactImport } from '@messaging-platform/sdk';
const gateway = createGatewayClient({ baseUrl: 'http://localhost:3100', token: 'gk_' });
export const imported: Promise<ContactImport> = gateway.contacts.importFile('contacts.csv');
export const ended: Promise<Campaign> = gateway.campaigns.waitForEnd('id');
// @ts-expect-error: no such channel
gateway.send({ channel: 'fax', to: '1', template: 't' });
`,
  'typed.cts': `import { createGatewayClient, type MessageReport } from '@messaging-platform/sdk';
const gateway = createGatewayClient({ baseUrl: 'http://localhost:3100', token: 'gk_' });
export const report: Promise<MessageReport> = gateway.waitForFinalStatus('id');
// @ts-expect-error: a campaign id is a string
gateway.campaigns.launch(42);
`,
};

/**
 * A client app installs the SDK as a package: `pnpm sdk:pack` builds the tarball, plain npm
 * installs it into a project of its own outside the repository, and the README's example runs as
 * written as ESM and as CommonJS against the real services, as do the contacts and campaigns
 * helpers; its declarations type-check the app in both module systems.
 */
describe('the SDK as an installed npm package', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let work: string;
  let app: string;
  let env: NodeJS.ProcessEnv;
  let botId = 0;

  /** Chats the bot's emulator accepted a message to. */
  const telegramChats = async (): Promise<string[]> => {
    const res = await fetch(`${platform.urls.sandbox}/_sandbox/telegram/calls?bot_id=${botId}`);
    const calls = (await res.json()) as { outcome: string; params: { chat_id?: unknown } }[];
    return calls
      .filter((c) => c.outcome === 'accepted' && c.params.chat_id !== undefined)
      .map((c) => String(c.params.chat_id));
  };
  const node = (file: string) => run(process.execPath, [file], { cwd: app, env, timeout: 90_000 });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'sdk-package-'));
    app = join(work, 'app');
    const installed = (async () => {
      const { stdout } = await run(
        process.execPath,
        ['-r', join(ROOT, 'scripts', 'register.js'), join(ROOT, 'scripts', 'sdk', 'pack.ts'), '--out-dir', work],
        { cwd: ROOT },
      );
      const tarball = stdout.trim().split('\n').pop() as string;
      mkdirSync(app);
      writeFileSync(join(app, 'package.json'), '{ "name": "client-app", "private": true }\n');
      await run('npm', ['install', resolve(ROOT, tarball), '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: app,
        // As a client app's shell runs it: without the settings pnpm passes its children.
        env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_/i.test(k))),
        timeout: 120_000,
      });
    })();
    platform = await startPlatform({
      suite: 'e2e-sdk-package',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50', CAMPAIGN_TICK_MS: '100' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system', { balance: 5 });
    const wa = await factory.activeApp(user.userId);
    await registerSandboxNumber(platform.urls.sandbox, wa);
    await factory.sendableTemplate(wa.id, { name: 'order_update', body: 'Hi {{1}}, your order {{2}} is on its way.' });
    const token = await gatewayAccount(platform.infra.databaseUrl, 'package', user.userId);
    const bot = await registerSandboxBot(platform.urls.sandbox, 'telegram');
    botId = bot.id;
    for (const body of [
      { channel: 'whatsapp', app_id: wa.id },
      { channel: 'telegram', bot_token: bot.token },
    ]) {
      const res = await fetch(`${platform.urls.gateway}/v1/connections`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
    }
    env = { ...process.env, GATEWAY_URL: platform.urls.gateway, GATEWAY_TOKEN: token };
    await installed;
  }, 300_000);

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("runs the README's example as written, as ESM and as CommonJS", async () => {
    const examples = readmeExamples();
    expect([...examples.keys()].sort()).toEqual(['send.cjs', 'send.mjs']);
    for (const [file, source] of examples) {
      writeFileSync(join(app, file), source);
      const { stdout } = await node(file);
      // Telegram reports no delivery to bots: SENT is the final status, and no failure.
      expect(stdout.trim()).toBe('SENT null');
    }
    expect((await telegramChats()).filter((chat) => chat === '424242')).toHaveLength(2);
  });

  it('imports contacts from a file and a stream, then estimates, launches, awaits and pages through a campaign', async () => {
    writeFileSync(join(app, 'helpers.mjs'), HELPERS);
    const out = JSON.parse((await node('helpers.mjs')).stdout) as {
      csv: Record<string, unknown>;
      ndjson: Record<string, unknown>;
      rejections: { row: number }[];
      estimate: { audience: number; recipients: number };
      ended: { state: string; counts: Record<string, number> };
      recipients: { seq: number; status: string; channel: string; message_id: string | null }[];
    };
    expect(out.csv).toMatchObject({ format: 'csv', state: 'completed', created: 5, rejected: 0 });
    expect(out.ndjson).toMatchObject({ format: 'ndjson', state: 'completed', created: 1, rejected: 1 });
    expect(out.rejections.map((r) => r.row)).toEqual([2]);
    expect(out.estimate).toMatchObject({ audience: 6, recipients: 6 });
    expect(out.ended).toMatchObject({ state: 'completed', counts: { pending: 0, skipped: 0 } });
    // Three pages of two, in audience order, each recipient sent one message on Telegram.
    expect(out.recipients.map((r) => r.seq)).toEqual([...out.recipients.map((r) => r.seq)].sort((a, b) => a - b));
    expect(out.recipients).toHaveLength(6);
    expect(new Set(out.recipients.map((r) => r.message_id)).size).toBe(6);
    expect(out.recipients.every((r) => r.channel === 'telegram' && r.message_id !== null)).toBe(true);
    // "Completed" means every recipient's message was accepted; the channel gets each a moment later.
    const expected = [1, 2, 3, 4, 5, 6].map((i) => String(810_000 + i));
    const chats = await waitFor(
      async () => {
        const seen = await telegramChats();
        return expected.every((chat) => seen.includes(chat)) ? seen : undefined;
      },
      30_000,
      "the campaign's six messages at the channel",
      200,
    );
    for (const chat of expected) expect(chats.filter((c) => c === chat)).toHaveLength(1);
  });

  it('type-checks a client app against its declarations, as ESM and as CommonJS', async () => {
    for (const [file, source] of Object.entries(TYPED)) writeFileSync(join(app, file), source);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = ['--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
    const types = ['--target', 'es2022', '--types', 'node', '--typeRoots', join(ROOT, 'node_modules', '@types')];
    const checked = await run(process.execPath, [tsc, ...args, ...types, ...Object.keys(TYPED)], {
      cwd: app,
      timeout: 120_000,
    }).catch((err: { stdout: string }) => err);
    // tsc prints its diagnostics on stdout: none when every use type-checks.
    expect(checked.stdout).toBe('');
  }, 150_000);
});
