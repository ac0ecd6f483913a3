import type { CallerIdentity } from './access-policy.js';

/**
 * Who a stateless request comes from, as one string: on OAuth endpoints the signed-in subject and
 * the OAuth client; '' for callers the endpoint cannot tell apart (Local access). Stateless
 * 2025-era traffic has no session, so this is what binds a cancel or a log level to a caller.
 */
export function callerKey(caller: Pick<CallerIdentity, 'subject' | 'client'>): string {
  if (caller.subject === undefined) return '';
  return `${caller.subject}\u0000${caller.client ?? ''}`;
}
