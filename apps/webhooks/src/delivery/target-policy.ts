import { ResolveAll, TargetPolicy } from '@app/egress';
import { SUBSCRIPTION_LIMITS } from '@app/contracts';
import { WebhooksConfig } from '../config';

/**
 * Where deliveries may go: the platform's one policy for tenant-chosen addresses (libs/egress),
 * relaxed only by WEBHOOKS_ALLOW_PRIVATE_TARGETS=true (tests, `pnpm stack`), never by NODE_ENV.
 */
export function webhookTargets(config: WebhooksConfig, resolveAll?: ResolveAll): TargetPolicy {
  return new TargetPolicy(
    { allowPrivate: config.allowPrivateTargets, maxUrlLength: SUBSCRIPTION_LIMITS.urlMaxLength },
    resolveAll,
  );
}
