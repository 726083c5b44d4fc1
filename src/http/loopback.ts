import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** 127.0.0.0/8, ::1, and IPv4 loopback mapped into IPv6. */
function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}

/** `localhost`, a name under `.localhost` (RFC 6761), 127.x.x.x or [::1], with any port. */
function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = (host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, ''))
    .toLowerCase()
    .replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost') || name === '[::1]') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/**
 * Whether a request comes from this machine and was addressed to it by a loopback name: the
 * socket's peer (not X-Forwarded-For) is a loopback address, no proxy on this machine forwarded it
 * for someone else, and its Host is a loopback name. A page on another site that resolves its own
 * name to 127.0.0.1 (DNS rebinding) still sends its own name as Host, and is refused.
 */
export function isLoopbackRequest(request: FastifyRequest): boolean {
  const { headers } = request;
  if (headers['x-forwarded-for'] !== undefined || headers.forwarded !== undefined) return false;
  return isLoopbackAddress(request.socket.remoteAddress) && isLoopbackHost(headers.host);
}
