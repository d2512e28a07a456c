import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CHANNELS } from '@app/contracts';
import { natsPasswordVariable, natsUsers, NatsServiceUser } from '@app/messaging';
import { NATS_VALUES_FILE, renderNatsValues } from '../../scripts/nats-auth';

const ROOT = join(__dirname, '..', '..');
const OVERLAYS = ['production', 'staging'] as const;
const PUBLIC = ['api', 'gateway'];
const UID = 10001;

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are untyped JSON */
type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; [k: string]: any }; [k: string]: any };

/** `kubectl kustomize` (kustomize v5) is the real tool; CI must have it, a laptop may not. */
const kustomize = (() => {
  try {
    execFileSync('kubectl', ['kustomize', '--help'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!kustomize) {
  if (process.env.CI === 'true') {
    throw new Error('kubectl (with kustomize) is required in CI to render and validate k8s/: see .ci/run');
  }
  process.stderr.write('test/deploy/k8s.test.ts: kubectl is not installed, the manifest checks are SKIPPED\n');
}

function render(overlay: string): K8sObject[] {
  const out = execFileSync('kubectl', ['kustomize', join(ROOT, 'k8s', 'overlays', overlay)], { encoding: 'utf8' });
  return parseAllDocuments(out).map((d) => d.toJS() as K8sObject);
}

/** Schema validation in a child process: the kubernetes-models packages are ESM only. */
function validate(objects: K8sObject[]): { kind: string; name: string; error: string | null }[] {
  const out = execFileSync(process.execPath, [join(__dirname, 'validate-k8s.mjs')], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
  });
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; name: string; error: string | null });
}

/** The secret keys each workload may read, and its NATS user: nothing more. */
const SECRET_KEYS: Record<string, { nats?: NatsServiceUser; keys: string[] }> = {
  api: { nats: 'api', keys: ['DATABASE_URL', 'ONBOARDING_SECRET', 'CONSENT_ADDRESS_SECRET'] },
  gateway: {
    nats: 'gateway',
    keys: [
      'DATABASE_URL',
      'WHATSAPP_APP_SECRET',
      'WHATSAPP_VERIFY_TOKEN',
      'WHATSAPP_ACCESS_TOKEN',
      'WHATSAPP_TWO_STEP_PIN',
      'CREDENTIALS_KEYS',
      'MEDIA_LINK_SECRET',
    ],
  },
  webhooks: { nats: 'webhooks', keys: ['DATABASE_URL', 'WEBHOOK_SECRET_KEYS'] },
  ...Object.fromEntries(
    CHANNELS.map((c) => [
      `queue-${c}`,
      {
        nats: `queue_${c}` as NatsServiceUser,
        keys:
          c === 'whatsapp' ? ['WHATSAPP_ACCESS_TOKEN'] : c === 'telegram' || c === 'max' ? ['CREDENTIALS_KEYS'] : [],
      },
    ]),
  ),
  'db-migrate': { keys: ['DATABASE_URL'] },
  'nats-setup': { nats: 'setup', keys: [] },
  sandbox: { keys: ['WHATSAPP_APP_SECRET', 'WHATSAPP_ACCESS_TOKEN'] },
};

const podSpecOf = (o: K8sObject) => o.spec.template.spec;
const env = (container: any): any[] => container.env ?? [];
const envValue = (container: any, name: string) => env(container).find((e) => e.name === name)?.value;
const containerPort = (container: any, port: string | number) =>
  (container.ports ?? []).find((p: any) => p.name === port || p.containerPort === port);

(kustomize ? describe.each(OVERLAYS) : describe.skip.each(OVERLAYS))('k8s overlay %s', (overlay) => {
  let objects: K8sObject[];
  const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const workloads = () => [...ofKind('Deployment'), ...ofKind('Job')];

  beforeAll(() => {
    objects = render(overlay);
  });

  it('renders objects that all validate against the Kubernetes API schemas', () => {
    expect(objects.length).toBeGreaterThan(30);
    const results = validate(objects);
    expect(results).toHaveLength(objects.length);
    expect(results.filter((r) => r.error)).toEqual([]);
  });

  it('probes every container on endpoints the services serve: /readyz on the admin port, /healthz on the public one', () => {
    for (const d of ofKind('Deployment')) {
      for (const c of podSpecOf(d).containers) {
        const where = `${d.metadata.name}/${c.name}`;
        expect({ where, readiness: c.readinessProbe?.httpGet?.path }).toEqual({ where, readiness: '/readyz' });
        expect({ where, liveness: c.livenessProbe?.httpGet?.path }).toEqual({ where, liveness: '/healthz' });
        expect(c.readinessProbe.httpGet.port).toBe('admin');
        expect(c.livenessProbe.httpGet.port).toBe('http');
        expect(containerPort(c, 'admin')).toBeDefined();
        expect(containerPort(c, 'http')).toBeDefined();
        // The admin port is the one the service opens: ADMIN_PORT, or its public port + 1000.
        const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('messaging-config'));
        const adminPort =
          d.metadata.name === 'sandbox'
            ? containerPort(c, 'http').containerPort + 1000
            : Number(config!.data.ADMIN_PORT);
        expect(containerPort(c, 'admin').containerPort).toBe(adminPort);
      }
    }
  });

  it('gives every container requests and a memory limit', () => {
    for (const w of workloads()) {
      for (const c of podSpecOf(w).containers) {
        expect({ w: w.metadata.name, r: c.resources }).toMatchObject({
          w: w.metadata.name,
          r: {
            requests: { cpu: expect.any(String), memory: expect.any(String) },
            limits: { memory: expect.any(String) },
          },
        });
      }
    }
  });

  it('has a PodDisruptionBudget and a HorizontalPodAutoscaler for every Deployment', () => {
    for (const d of ofKind('Deployment')) {
      const labels = d.spec.template.metadata.labels;
      const pdb = ofKind('PodDisruptionBudget').find((p) =>
        Object.entries(p.spec.selector.matchLabels).every(([k, v]) => labels[k] === v),
      );
      expect({ d: d.metadata.name, pdb: pdb?.metadata.name }).toEqual({ d: d.metadata.name, pdb: d.metadata.name });
      const hpa = ofKind('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === d.metadata.name);
      expect({ d: d.metadata.name, hpa: hpa?.spec.scaleTargetRef.kind }).toEqual({
        d: d.metadata.name,
        hpa: 'Deployment',
      });
    }
  });

  it('runs one queue Deployment per channel, each with CHANNELS set to it and its own NATS user', () => {
    const queues = ofKind('Deployment').filter((d) => envValue(podSpecOf(d).containers[0], 'SERVICE') === 'queue');
    expect(queues.map((q) => q.metadata.name).sort()).toEqual(CHANNELS.map((c) => `queue-${c}`).sort());
    for (const q of queues) {
      const channel = q.metadata.name.replace('queue-', '');
      expect(envValue(podSpecOf(q).containers[0], 'CHANNELS')).toBe(channel);
      expect(envValue(podSpecOf(q).containers[0], 'NATS_USER')).toBe(`queue_${channel}`);
    }
  });

  it('holds no secret value: no Secret objects, secrets only by reference, each workload only the keys it uses', () => {
    expect(ofKind('Secret')).toEqual([]);
    const secretish = /PASSWORD|SECRET|TOKEN|DATABASE_URL|KEY/;
    for (const cm of ofKind('ConfigMap')) {
      expect(Object.keys(cm.data ?? {}).filter((k) => secretish.test(k))).toEqual([]);
    }
    for (const w of workloads()) {
      const allowed = SECRET_KEYS[w.metadata.name];
      expect({ w: w.metadata.name, known: Boolean(allowed) }).toEqual({ w: w.metadata.name, known: true });
      for (const c of podSpecOf(w).containers) {
        expect((c.envFrom ?? []).filter((e: any) => e.secretRef)).toEqual([]);
        for (const e of env(c)) {
          if (secretish.test(e.name))
            expect({ name: e.name, value: e.value }).toEqual({ name: e.name, value: undefined });
        }
        const keys = env(c)
          .map((e) => e.valueFrom?.secretKeyRef?.key)
          .filter(Boolean)
          .sort();
        const natsUser = envValue(c, 'NATS_USER') as NatsServiceUser | undefined;
        expect(natsUser).toBe(allowed.nats);
        const expected = [...allowed.keys, ...(natsUser ? [natsPasswordVariable(natsUser)] : [])].sort();
        expect({ w: w.metadata.name, keys }).toEqual({ w: w.metadata.name, keys: expected });
        if (natsUser) expect(natsUsers()).toContain(natsUser);
      }
    }
  });

  it('runs every pod as a numeric non-root user with seccomp, no privilege escalation and no service account token', () => {
    for (const w of workloads()) {
      const spec = podSpecOf(w);
      const where = w.metadata.name;
      expect({ where, automount: spec.automountServiceAccountToken }).toEqual({ where, automount: false });
      expect({ where, sc: spec.securityContext }).toMatchObject({
        where,
        sc: { runAsNonRoot: true, runAsUser: UID, seccompProfile: { type: 'RuntimeDefault' } },
      });
      for (const c of spec.containers) {
        expect({ where, sc: c.securityContext }).toMatchObject({
          where,
          sc: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
        });
      }
    }
  });

  it('never deploys a latest tag; production pins the image by digest', () => {
    const images = workloads().flatMap((w) => podSpecOf(w).containers.map((c: any) => c.image as string));
    for (const image of images) {
      expect(image).not.toMatch(/:latest$/);
      expect(image).toMatch(/^registry\.example\.com\/messaging-platform[:@]/);
      if (overlay === 'production') expect(image).toMatch(/@sha256:[0-9a-f]{64}$/);
    }
  });

  it('exposes only /api, /v1 and /console over TLS, through Services without the admin port', () => {
    const [ingress, ...more] = ofKind('Ingress');
    expect(more).toEqual([]);
    expect(ingress.metadata.annotations['cert-manager.io/cluster-issuer']).toBeTruthy();
    const hosts: string[] = ingress.spec.rules.map((r: any) => r.host);
    expect(ingress.spec.tls[0].hosts.sort()).toEqual([...hosts].sort());
    for (const h of hosts) expect(h).not.toMatch(/\.invalid$/);
    const routes = ingress.spec.rules.flatMap((r: any) =>
      r.http.paths.map((p: any) => `${p.path} -> ${p.backend.service.name}:${p.backend.service.port.name}`),
    );
    expect(routes.sort()).toEqual(['/api -> api:http', '/console -> gateway:http', '/v1 -> gateway:http']);
    for (const name of PUBLIC) {
      const svc = ofKind('Service').find((s) => s.metadata.name === name)!;
      expect(svc.spec.ports.map((p: any) => p.targetPort)).toEqual(['http']);
    }
  });

  it('lets traffic from outside the namespace reach only the api and the gateway (and Prometheus the admin ports)', () => {
    const policies = ofKind('NetworkPolicy');
    const deny = policies.find((p) => p.metadata.name === 'default-deny')!;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const selects = (p: K8sObject, app: string) => {
      const sel = p.spec.podSelector;
      if (!sel.matchLabels && !sel.matchExpressions) return true;
      if (sel.matchLabels) return sel.matchLabels['app.kubernetes.io/name'] === app;
      return sel.matchExpressions.every((e: any) => e.operator === 'In' && e.values.includes(app));
    };
    const apps = ofKind('Deployment').map((d) => d.metadata.name);
    let publicRules = 0;
    for (const p of policies) {
      for (const rule of p.spec.ingress ?? []) {
        const outside = (rule.from ?? [{}]).some((f: any) => f.namespaceSelector || f.ipBlock || !f.podSelector);
        if (!outside) continue;
        const ports = (rule.ports ?? []).map((x: any) => x.port);
        const fromMonitoring = (rule.from ?? []).every(
          (f: any) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring',
        );
        if (fromMonitoring) {
          expect({ policy: p.metadata.name, ports }).toEqual({ policy: p.metadata.name, ports: ['admin'] });
          continue;
        }
        expect({ policy: p.metadata.name, ports }).toEqual({ policy: p.metadata.name, ports: ['http'] });
        const reached = apps.filter((a) => selects(p, a));
        expect({ policy: p.metadata.name, reached: reached.sort() }).toEqual({
          policy: p.metadata.name,
          reached: [...PUBLIC].sort(),
        });
        publicRules++;
      }
    }
    expect(publicRules).toBeGreaterThan(0);
  });

  it('declares JetStream with three replicas and scrapes every workload when monitoring is on', () => {
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('messaging-config'))!;
    expect(config.data.NATS_STREAM_REPLICAS).toBe('3');
    const monitors = ofKind('ServiceMonitor');
    expect(monitors).toHaveLength(1);
    const metricsServices = ofKind('Service').filter(
      (s) => s.metadata.labels?.['app.kubernetes.io/component'] === 'metrics',
    );
    const scraped = metricsServices.map((s) => s.spec.selector['app.kubernetes.io/name']).sort();
    expect(scraped).toEqual(
      ofKind('Deployment')
        .map((d) => d.metadata.name)
        .filter((n) => n !== 'sandbox')
        .sort(),
    );
    for (const s of metricsServices) expect(s.spec.ports.map((p: any) => p.targetPort)).toEqual(['admin']);
  });
});

describe('the image and the NATS chart values', () => {
  it('runs Node 24 as the numeric user the manifests require', () => {
    const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
    for (const from of dockerfile.match(/^FROM \S+/gm) ?? []) expect(from).toMatch(/^FROM node:24-/);
    expect(dockerfile).toMatch(new RegExp(`^USER ${UID}:${UID}$`, 'm'));
    expect(dockerfile).toContain(`--uid ${UID}`);
  });

  it('has the NATS users and permissions generated from the topology, three JetStream replicas on file storage', () => {
    const checkedIn = readFileSync(NATS_VALUES_FILE, 'utf8');
    // Run `pnpm nats:auth --write-values` when the topology changes.
    expect(checkedIn).toBe(renderNatsValues());
    const values = parseAllDocuments(checkedIn)[0].toJS() as any;
    expect(values.config.cluster.replicas).toBe(3);
    expect(values.config.jetstream.fileStore.enabled).toBe(true);
    const users = values.config.merge.authorization.users.map((u: any) => u.user);
    expect(users).toEqual(natsUsers());
    for (const u of values.config.merge.authorization.users) {
      expect(u.password).toBe(`<< $${natsPasswordVariable(u.user)} >>`);
    }
  });

  it('has a CloudNativePG cluster whose connection reaches the services as DATABASE_URL', () => {
    const docs = parseAllDocuments(readFileSync(join(ROOT, 'deploy', 'postgres', 'cluster.yaml'), 'utf8')).map(
      (d) => d.toJS() as K8sObject,
    );
    const cluster = docs.find((d) => d.kind === 'Cluster')!;
    expect(cluster.apiVersion).toBe('postgresql.cnpg.io/v1');
    expect(cluster.metadata.namespace).toBe('postgres');
    expect(cluster.spec.instances).toBe(3);
    const copy = docs.find((d) => d.kind === 'ExternalSecret')!;
    expect(copy.metadata.namespace).toBe('messaging');
    expect(copy.spec.target.name).toBe('messaging-secrets');
    expect(copy.spec.data).toEqual([
      { secretKey: 'DATABASE_URL', remoteRef: { key: `${cluster.metadata.name}-app`, property: 'uri' } },
    ]);
  });
});
