import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Binds an upstream sign-in to the browser that started it: a random value in an HttpOnly,
 * SameSite=Lax cookie (so it survives the provider's top-level redirect back), `__Host-` prefixed
 * over HTTPS so no subdomain can plant it. A callback without the cookie is someone else's.
 */
export function cookieName(slug: string, secure: boolean): string {
  return `${secure ? '__Host-' : ''}mcp_signin_${slug.replace(/-/g, '_')}`;
}

export function setBindingCookie(res: ServerResponse, name: string, value: string, secure: boolean, maxAgeSeconds: number): void {
  const attributes = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (secure) attributes.push('Secure');
  appendHeader(res, 'set-cookie', attributes.join('; '));
}

export function clearBindingCookie(res: ServerResponse, name: string, secure: boolean): void {
  const attributes = [`${name}=`, 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Max-Age=0'];
  if (secure) attributes.push('Secure');
  appendHeader(res, 'set-cookie', attributes.join('; '));
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

function appendHeader(res: ServerResponse, header: string, value: string): void {
  const existing = res.getHeader(header);
  const values = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader(header, [...values, value]);
}
