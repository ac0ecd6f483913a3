import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';

export interface CookieOptions {
  /** Lax survives a top-level redirect from another site (the provider's); Strict does not. */
  readonly sameSite: 'Lax' | 'Strict';
  /** Sent only over HTTPS, and named with the `__Host-` prefix so no other host can plant it. */
  readonly secure: boolean;
}

/**
 * The name of one of the bridge's short-lived browser cookies: `<purpose>_<slug>_<tag>`, the tag
 * derived from the sign-in or consent it belongs to, so two of them open in one browser (two tabs,
 * two clients, a retry) never overwrite each other.
 */
export function cookieName(purpose: string, slug: string, belongsTo: string, secure: boolean): string {
  const tag = createHash('sha256').update(`${purpose}-cookie:${belongsTo}`).digest('hex').slice(0, 16);
  return `${secure ? '__Host-' : ''}mcp_${purpose}_${slug.replace(/-/g, '_')}_${tag}`;
}

/** An HttpOnly cookie for the whole origin, living `maxAgeSeconds`. */
export function setCookie(res: ServerResponse, name: string, value: string, options: CookieOptions, maxAgeSeconds: number): void {
  appendCookie(res, [`${name}=${value}`, 'Path=/', 'HttpOnly', `SameSite=${options.sameSite}`, `Max-Age=${maxAgeSeconds}`], options.secure);
}

export function clearCookie(res: ServerResponse, name: string, options: CookieOptions): void {
  appendCookie(res, [`${name}=`, 'Path=/', 'HttpOnly', `SameSite=${options.sameSite}`, 'Max-Age=0'], options.secure);
}

export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1) continue;
    if (part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim() || undefined;
  }
  return undefined;
}

function appendCookie(res: ServerResponse, attributes: string[], secure: boolean): void {
  if (secure) attributes.push('Secure');
  const existing = res.getHeader('set-cookie');
  const values = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader('set-cookie', [...values, attributes.join('; ')]);
}
