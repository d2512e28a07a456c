import * as ipaddr from 'ipaddr.js';

/** IPv4-compatible IPv6 (`::a.b.c.d`, deprecated): a stack may route it to the IPv4 address it carries. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * True for an address on the public internet. Loopback, private, link-local, unique-local, CGNAT,
 * multicast, unspecified, broadcast, documentation and other reserved ranges are refused; an
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries, and the whole deprecated
 * IPv4-compatible range (`::/96`, `[::127.0.0.1]`) is refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.match(IPV4_COMPATIBLE)) return false;
  }
  return ip.range() === 'unicast';
}

/** Strips the brackets of an IPv6 literal host (`[::1]`). */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** True when the host is an IP literal rather than a name. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(bareHost(host));
}
