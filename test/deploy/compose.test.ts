import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { loadConfig, SERVICE_NODE_FLAGS } from '@app/config';
import { CHANNELS } from '@app/contracts';
import { ApiConfig } from '../../apps/api/src/config';
import { GatewayConfig } from '../../apps/gateway/src/config';
import { QueueConfig } from '../../apps/queue/src/config';
import { SandboxConfig } from '../../apps/sandbox/src/config';
import { WebhooksConfig } from '../../apps/webhooks/src/config';

const ROOT = join(__dirname, '..', '..');
const DEPLOY = join(ROOT, 'deploy');

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
  healthcheck?: { test: string[] };
}

const CONFIGS: Record<string, new () => object> = {
  api: ApiConfig,
  gateway: GatewayConfig,
  queue: QueueConfig,
  webhooks: WebhooksConfig,
  sandbox: SandboxConfig,
};

/** No Docker engine runs in CI: the file is checked statically against the repository. */
describe('deploy/docker-compose.yml', () => {
  const compose = parse(readFileSync(join(DEPLOY, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const services = compose.services;
  const apps = Object.entries(services).filter(([, s]) => s.environment?.SERVICE);

  it('has Postgres, NATS with JetStream, the migration and stream-setup steps, every service and the sandbox', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['api', 'gateway', 'migrate', 'nats', 'nats-setup', 'postgres', 'queue', 'sandbox', 'webhooks'].sort(),
    );
    expect(services.nats.command).toContain('-js');
    expect(apps.map(([, s]) => s.environment!.SERVICE).sort()).toEqual(Object.keys(CONFIGS).sort());
    expect(services.queue.environment!.CHANNELS.split(',').sort()).toEqual([...CHANNELS].sort());
  });

  it('builds the platform image from a Dockerfile that exists, and pins every other image to a tag', () => {
    const builders = Object.values(services).filter((s) => s.build);
    expect(builders).toHaveLength(1);
    const build = builders[0].build!;
    expect(existsSync(resolve(DEPLOY, build.context, build.dockerfile))).toBe(true);
    for (const [name, s] of Object.entries(services)) {
      expect({ name, image: s.image }).toEqual({ name, image: expect.stringMatching(/^[a-z0-9./-]+:[\w.-]+$/) });
      expect(s.image).not.toMatch(/:latest$/);
      if (!s.build && s.image === builders[0].image) expect(s.image).toBe('messaging-platform:local');
    }
  });

  it('runs commands and entry points that exist in the repository', () => {
    const dockerfile = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`exec node ${SERVICE_NODE_FLAGS.join(' ')} dist/apps/\${SERVICE}/src/main.js`);
    for (const [name, s] of Object.entries(services).filter(([, x]) => x.image === 'messaging-platform:local')) {
      if (s.command) {
        const [node, script] = s.command;
        expect(node).toBe('node');
        const source = join(ROOT, script.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
        expect({ name, source, exists: existsSync(source) }).toEqual({ name, source, exists: true });
        expect(readFileSync(source, 'utf8')).toContain('require.main === module');
      } else {
        const main = join(ROOT, 'apps', s.environment!.SERVICE, 'src', 'main.ts');
        expect({ name, main, exists: existsSync(main) }).toEqual({ name, main, exists: true });
      }
    }
  });

  it('gives each service an environment its own configuration accepts', () => {
    for (const [name, s] of apps) {
      expect(() => loadConfig(CONFIGS[s.environment!.SERVICE], s.environment)).not.toThrow();
      expect(name).toBe(s.environment!.SERVICE);
    }
  });

  it('starts services only after their dependencies, and publishes only the api and the gateway', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        expect({ name, dep, known: dep in services }).toEqual({ name, dep, known: true });
        expect(['service_healthy', 'service_completed_successfully', 'service_started']).toContain(condition);
        if (condition === 'service_healthy') expect(services[dep].healthcheck).toBeDefined();
      }
    }
    for (const [, s] of apps) {
      expect(s.depends_on).toMatchObject({
        migrate: { condition: 'service_completed_successfully' },
        'nats-setup': { condition: 'service_completed_successfully' },
      });
      // Readiness is checked on the admin port, which is never published.
      expect(s.healthcheck!.test.join(' ')).toMatch(/\/readyz/);
    }
    const published = Object.entries(services)
      .filter(([, s]) => s.ports?.length)
      .map(([name, s]) => `${name} ${s.ports!.join(',')}`);
    expect(published.sort()).toEqual(['api 3000:3000', 'gateway 3100:3100']);
  });
});
