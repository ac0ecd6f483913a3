import type { Store, StoreKey } from '../storage/store.js';
import { RECORD_KINDS } from './sign-in-records.js';

// Below bridge/, refresh/ and registration/: every one of them ends access tokens, and every
// instance's AccessGrantCache (access-grant-cache.ts) must hear of it.

/** Where the ends of access grants of one namespace are announced: the message is the token's hash. */
export function accessRevocations(namespace: string): StoreKey {
  return { namespace, kind: 'access-ended', id: 'all' };
}

/**
 * Deletes the access grant stored under `hash` (the token's SHA-256), then tells every instance that
 * shares the storage to forget it from its cache. The announcement waits for the delete, so a cache
 * that fetches again on hearing it finds the grant gone (on a Redis Cluster the two go to different
 * shards, whose order nothing else would keep). It is best effort: a lost one is covered by the
 * cache's bounded lifetime. Rejects like `store.delete` (StorageUnavailableError when storage cannot
 * be reached), and then announces nothing, since the grant may still be there.
 */
export async function endAccessGrant(store: Store, namespace: string, hash: string): Promise<void> {
  await store.delete({ namespace, kind: RECORD_KINDS.access, id: hash });
  await store.publish(accessRevocations(namespace), hash).catch(() => undefined);
}
