import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import * as ipaddr from 'ipaddr.js';
import { SUBSCRIPTION_LIMITS } from '@app/contracts';
import { WebhooksConfig } from '../config';

export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/**
 * True for an address on the public internet. Loopback, private, link-local, unique-local, CGNAT,
 * multicast, unspecified, broadcast, documentation and other reserved ranges are refused; an
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  }
  return ip.range() === 'unicast';
}

/** Strips the brackets of an IPv6 literal host (`[::1]`). */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

export type TargetCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Where deliveries may go. By default HTTPS and a host whose every address is public, so a
 * subscription cannot make the platform call into its own network (SSRF), whatever NODE_ENV says
 * (staging runs as development). Only WEBHOOKS_ALLOW_PRIVATE_TARGETS=true (tests, `pnpm stack`)
 * allows plain HTTP and loopback, for local receivers.
 */
export class TargetPolicy {
  readonly strict: boolean;

  constructor(
    config: WebhooksConfig,
    private readonly resolveAll: ResolveAll = systemResolve,
  ) {
    this.strict = !config.allowPrivateTargets;
  }

  /** The URL's form alone: absolute http(s), no credentials, no fragment; HTTPS when strict. */
  checkForm(raw: string): TargetCheck {
    if (raw.length > SUBSCRIPTION_LIMITS.urlMaxLength) {
      return { ok: false, reason: `must be at most ${SUBSCRIPTION_LIMITS.urlMaxLength} characters` };
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: 'must be an absolute URL' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      return { ok: false, reason: 'must be an http or https URL' };
    }
    if (this.strict && url.protocol !== 'https:') return { ok: false, reason: 'must use https' };
    if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
    if (url.hash) return { ok: false, reason: 'must not have a fragment' };
    if (!url.hostname) return { ok: false, reason: 'must have a host' };
    return { ok: true, url };
  }

  /** Form plus, when strict, every address the host resolves to. */
  async check(raw: string): Promise<TargetCheck> {
    const form = this.checkForm(raw);
    if (!form.ok || !this.strict) return form;
    const host = bareHost(form.url.hostname);
    if (ipaddr.isValid(host)) {
      return isPublicAddress(host) ? form : { ok: false, reason: `must not point to a private or local address` };
    }
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolveAll(host);
    } catch {
      return { ok: false, reason: `host ${host} does not resolve` };
    }
    if (addresses.length === 0) return { ok: false, reason: `host ${host} does not resolve` };
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) {
      // Which internal address the name resolved to is not the caller's business.
      return { ok: false, reason: 'must not resolve to a private or local address' };
    }
    return form;
  }

  /**
   * A `lookup` for the HTTP client: when strict, every resolved address is checked at connect
   * time, so a host that re-resolves to a private address after the check (DNS rebinding) is
   * still refused.
   */
  connectLookup(): ((hostname: string, options: object, callback: LookupCallback) => void) | undefined {
    if (!this.strict) return undefined;
    return (hostname, options, callback) => {
      this.resolveAll(hostname).then(
        (addresses) => {
          const blocked = addresses.find((a) => !isPublicAddress(a.address));
          if (blocked || addresses.length === 0) {
            const err = Object.assign(new Error(`refused: ${hostname} resolves to a private or local address`), {
              code: 'EADDRNOTPUBLIC',
            });
            return callback(err, '', 4);
          }
          if ((options as { all?: boolean }).all) return callback(null, addresses);
          return callback(null, addresses[0].address, addresses[0].family);
        },
        (err: NodeJS.ErrnoException) => callback(err, '', 4),
      );
    };
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
