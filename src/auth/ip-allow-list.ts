/**
 * Policy IP allow-lists (`ip_access`: a CSV of addresses, CIDR subnets and `a-b` ranges). Strata's behaviour (docs/design/directus-compatibility.md): a
 * user whose policies carry allow-lists may only come from an address on one of them (401 INVALID_IP otherwise).
 */
import { BlockList, isIP } from 'node:net';

function family(ip: string): 'ipv4' | 'ipv6' {
  return isIP(ip) === 6 ? 'ipv6' : 'ipv4';
}

/** An allow-list entry list → a matcher; entries that are not addresses are ignored (they can only deny). */
export function allowList(csv: string): BlockList {
  const list = new BlockList();
  for (const entry of csv
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    try {
      if (entry.includes('/')) {
        const [address, bits] = entry.split('/') as [string, string];
        if (isIP(address)) list.addSubnet(address, Number(bits), family(address));
      } else if (entry.includes('-') && !entry.includes(':')) {
        const [start, end] = entry.split('-').map((s) => s.trim()) as [string, string];
        if (isIP(start) && isIP(end)) list.addRange(start, end, family(start));
      } else if (isIP(entry)) {
        list.addAddress(entry, family(entry));
      }
    } catch {
      // A malformed entry allows nothing.
    }
  }
  return list;
}

/** IPv4-mapped IPv6 addresses (::ffff:1.2.3.4) are checked as the IPv4 address they carry. */
export function ipAllowed(lists: BlockList[], ip: string | null): boolean {
  if (!lists.length) return true;
  if (!ip) return false;
  const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
  if (!isIP(plain)) return false;
  return lists.some((list) => list.check(plain, family(plain)));
}
