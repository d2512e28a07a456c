import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import type { TcpNetConnectOpts } from 'node:net';
import { Agent, Dispatcher } from 'undici';
import { bareHost, isIpLiteral, isPublicAddress } from './public-address';

export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

export type TargetCheck = { ok: true; url: URL } | { ok: false; reason: string };

export interface TargetPolicyOptions {
  /**
   * Allows plain HTTP and private or loopback addresses: only for local receivers (tests, `pnpm
   * stack`), set by an explicit variable of each service, never implied by NODE_ENV.
   */
  allowPrivate: boolean;
  /** Longest URL accepted. */
  maxUrlLength?: number;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type ConnectLookup = (hostname: string, options: object, callback: LookupCallback) => void;

const DEFAULT_MAX_URL_LENGTH = 2048;

/**
 * Where the platform may call when a tenant chose the address (webhook subscriptions, course
 * platforms, media it downloads). By default HTTPS and a host whose every address is public, so a
 * tenant cannot make the platform call into its own network (SSRF), whatever NODE_ENV says (staging
 * runs as development). The check runs when the address is given, again before every call, and at
 * connect time on every address the name resolves to (DNS rebinding). URLs carrying credentials are
 * refused in every mode: they would be stored and shown back in clear.
 */
export class TargetPolicy {
  readonly strict: boolean;
  private readonly maxUrlLength: number;
  private agent?: Agent;

  constructor(
    options: TargetPolicyOptions,
    private readonly resolveAll: ResolveAll = systemResolve,
  ) {
    this.strict = !options.allowPrivate;
    this.maxUrlLength = options.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH;
  }

  /**
   * The URL's form alone, without resolving its name: absolute http(s), no credentials, no
   * fragment; when strict, HTTPS and no private or local IP literal.
   */
  checkForm(raw: string): TargetCheck {
    if (raw.length > this.maxUrlLength) return { ok: false, reason: `must be at most ${this.maxUrlLength} characters` };
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
    // WHATWG URL parsing already turned 0x7f000001, 2130706433 and 127.1 into 127.0.0.1.
    if (this.strict && isIpLiteral(url.hostname) && !isPublicAddress(bareHost(url.hostname))) {
      return { ok: false, reason: 'must not point to a private or local address' };
    }
    return { ok: true, url };
  }

  /** Form plus, when strict, every address the host resolves to. */
  async check(raw: string): Promise<TargetCheck> {
    const form = this.checkForm(raw);
    if (!form.ok || !this.strict || isIpLiteral(form.url.hostname)) return form;
    const host = form.url.hostname;
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolveAll(host);
    } catch {
      return { ok: false, reason: `host ${host} does not resolve` };
    }
    if (addresses.length === 0) return { ok: false, reason: `host ${host} does not resolve` };
    if (addresses.some((a) => !isPublicAddress(a.address))) {
      // Which internal address the name resolved to is not the caller's business.
      return { ok: false, reason: 'must not resolve to a private or local address' };
    }
    return form;
  }

  /**
   * A `lookup` for node's HTTP clients: when strict, every resolved address is checked at connect
   * time, so a host that re-resolves to a private address after the check (DNS rebinding) is still
   * refused. Undefined when private targets are allowed.
   */
  connectLookup(): ConnectLookup | undefined {
    if (!this.strict) return undefined;
    return (hostname, options, callback) => {
      this.resolveAll(hostname).then(
        (addresses) => {
          if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
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

  /**
   * An undici dispatcher whose connections go through `connectLookup` (one per policy, pooled);
   * undefined when private targets are allowed (the global pool serves).
   */
  dispatcher(): Dispatcher | undefined {
    const lookup = this.connectLookup();
    if (!lookup) return undefined;
    this.agent ??= new Agent({ connect: { lookup: lookup as unknown as TcpNetConnectOpts['lookup'] } });
    return this.agent;
  }
}
