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

/**
 * The caller and its groups, as one string: what a 2025-era answer to a flow's question must come
 * from. A caller whose groups changed between the question and its answer (it lost one an item
 * needs) is no longer the caller that asked, and its answer is refused like another caller's.
 */
export function callerWithGroupsKey(caller: Pick<CallerIdentity, 'subject' | 'client' | 'groups'>): string {
  const key = callerKey(caller);
  if (key === '' || caller.groups === undefined) return key;
  return `${key}\u0000${JSON.stringify([...caller.groups].sort())}`;
}
