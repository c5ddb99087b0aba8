import { isIPv4, isIPv6 } from 'node:net';
import type { Request } from 'express';

/** The client's address as Express sees it (`trust proxy` decides whether X-Forwarded-For counts). */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * The key per-address limits count under: an IPv4 address as it is (an IPv4-mapped IPv6 address counts as
 * its IPv4), an IPv6 address by its first `ipv6PrefixLength` bits (/64 by default: one home or phone gets a
 * whole /64 and can pick any address in it, so counting addresses one by one limits nothing).
 */
export function addressKey(address: string, ipv6PrefixLength = 64): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const groups = expandIPv6(address);
  const bits = groups.map((g) => g.toString(2).padStart(16, '0')).join('').slice(0, ipv6PrefixLength).padEnd(128, '0');
  const kept = Array.from({ length: 8 }, (_, i) => parseInt(bits.slice(i * 16, i * 16 + 16), 2).toString(16));
  return `${kept.join(':')}/${ipv6PrefixLength}`;
}

/** The per-address limit key of a request's client. */
export function clientKey(req: Request, ipv6PrefixLength?: number): string {
  return addressKey(clientIp(req), ipv6PrefixLength);
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, an embedded IPv4 tail read as two groups). */
function expandIPv6(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, v4.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((g) => parseInt(g || '0', 16));
}
