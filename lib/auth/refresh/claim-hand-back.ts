import { setTimeout as sleep } from 'node:timers/promises';
import { isStorageUnavailable } from '../../storage/store.js';
import { released, unclaimed } from './claims.js';
import type { RefreshContext } from './refresh-context.js';
import { encodeSession, type SessionRecord } from './session-records.js';

/**
 * A worker that stops before committing hands its claim back, so the next request for the session
 * rotates at once instead of waiting for the claim deadline (60 s). `held` are the records that may
 * be stored now with this worker's claim: more than one when the write that failed may still have
 * been applied (a reply lost in a failover). The first that is still stored is handed back: a
 * verified provider result stays pending (deadline moved to now), else the claim goes.
 *
 * When storage cannot be reached (a Redis failover, typically), the hand-back is tried again in
 * the background every `timing.handBackRetryMs` until it goes through or the claim's deadline
 * passes. Without that, a rotation interrupted by a failover left its claim behind, and every
 * refresh of that session for the next minute waited five seconds and got 503 (measured on a
 * Sentinel group: in 5 of 8 failovers refreshes went unserved for ~60 s while tool calls were
 * served again within 0.4–3.1 s). Only a worker whose process dies leaves the deadline to recover
 * its claim.
 */
export async function handBack(ctx: RefreshContext, session: string, held: readonly SessionRecord[]): Promise<void> {
  if (await handBackOnce(ctx, session, held)) return;
  void retryUntilDeadline(ctx, session, held);
}

async function retryUntilDeadline(ctx: RefreshContext, session: string, held: readonly SessionRecord[]): Promise<void> {
  const deadline = Math.max(...held.map((record) => record.claim?.deadline ?? 0));
  while (ctx.now() < deadline) {
    // unref: a hand-back still waiting for storage must not keep Node-RED from exiting.
    await sleep(ctx.timing.handBackRetryMs, undefined, { ref: false });
    if (await handBackOnce(ctx, session, held)) return;
  }
}

/** true when done: handed back, or none of `held` is stored any more (committed, taken over, ended). */
async function handBackOnce(ctx: RefreshContext, session: string, held: readonly SessionRecord[]): Promise<boolean> {
  try {
    for (const record of held) {
      if ((await ctx.sessions.replace(session, encodeSession(record), returned(record, ctx.now()))).ok) return true;
    }
    return true;
  } catch (error) {
    // Anything but an outage will not heal by trying again; the claim deadline recovers it.
    return !isStorageUnavailable(error);
  }
}

function returned(record: SessionRecord, now: number): SessionRecord {
  return record.claim?.pending === undefined ? unclaimed(record) : released(record, now);
}
