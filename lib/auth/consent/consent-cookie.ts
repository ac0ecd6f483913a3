import type { ServerResponse } from 'node:http';
import { sha256 } from '../secrets.js';

/**
 * The browser half of the consent CSRF check. SameSite=Strict: the answer is a same-origin form
 * POST, so the cookie is never needed on a cross-site request, and a forged cross-site POST arrives
 * without it. `__Host-` over HTTPS so no sibling host can plant one. One cookie per pending consent
 * (the name carries a tag derived from the consent handle), so two approval tabs open at once do
 * not overwrite each other's cookie.
 */
export function consentCookieName(slug: string, handle: string, secure: boolean): string {
  const tag = sha256(`consent-cookie:${handle}`).slice(0, 16);
  return `${secure ? '__Host-' : ''}mcp_consent_${slug.replace(/-/g, '_')}_${tag}`;
}

export function setConsentCookie(res: ServerResponse, name: string, value: string, secure: boolean, maxAgeSeconds: number): void {
  appendCookie(res, [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`], secure);
}

export function clearConsentCookie(res: ServerResponse, name: string, secure: boolean): void {
  appendCookie(res, [`${name}=`, 'Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=0'], secure);
}

function appendCookie(res: ServerResponse, attributes: string[], secure: boolean): void {
  if (secure) attributes.push('Secure');
  const existing = res.getHeader('set-cookie');
  const values = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader('set-cookie', [...values, attributes.join('; ')]);
}
