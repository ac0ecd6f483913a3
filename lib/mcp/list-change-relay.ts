import { randomUUID } from 'node:crypto';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Store } from '../storage/store.js';
import { waitForState } from '../storage/wait-for-state.js';
import { DEFAULTS } from '../core/defaults.js';
import { parseAudienceChange, type AudienceChange } from './list-audiences.js';
import { isListKind, type ListKind } from './list-changes.js';
import { parseJsonOrUndefined } from '../core/parse-json.js';

/** Tells this process's own messages apart from other instances' on a shared channel. */
const INSTANCE_ID = randomUUID();

export interface ListChangeRelay {
  /** Tells the other instances sharing the storage that these lists of the endpoint changed, and for whom. */
  announce(kinds: readonly ListKind[], audiences: AudienceChange): void;
  close(): void;
}

/**
 * List-changed news for one endpoint across Node-RED instances that share a Redis: a deploy on one
 * instance publishes which lists changed and whom each change concerns (list-audiences.ts), and every
 * other instance tells those of the clients whose streams it holds. Memory storage reaches only this process, where the endpoint has already told its own
 * clients, so the relay is only built for Redis. Lost while Redis is down (nothing is queued): a
 * client that reconnects lists again anyway.
 */
export function relayListChanges(options: {
  readonly store: Store;
  readonly namespace: string;
  readonly path: string;
  readonly logger: Logger;
  /** Called with the kinds another instance announced for this endpoint, and their audiences when it named them. */
  readonly deliver: (kinds: ListKind[], audiences: AudienceChange | undefined) => void;
}): ListChangeRelay {
  const { store, logger } = options;
  const channel = { namespace: options.namespace, kind: 'list-changed', id: options.path };
  const unsubscribe = store.subscribe(channel, (message) => {
    const announced = parseAnnouncement(message);
    if (announced === undefined) return logger.debug(`list-changed message on ${options.path} ignored: not one this palette sends`);
    if (announced.kinds.length > 0) options.deliver(announced.kinds, announced.audiences);
  });
  return {
    announce(kinds, audiences) {
      if (kinds.length === 0) return;
      // A full deploy opens a new storage connection together with the endpoint: the news of that
      // very deploy waits for it, briefly, instead of failing on a connection still being made.
      const ready = store.state === 'ready' ? Promise.resolve() : waitForState(store, 'ready', DEFAULTS.listChangeRelayWaitMs);
      ready.then(() => store.publish(channel, JSON.stringify({ origin: INSTANCE_ID, kinds, audiences }))).catch((error: unknown) => {
        logger.warn(`clients on other instances were not told that the ${kinds.join(', ')} list(s) of ${options.path} changed: ${describeError(error)}`);
      });
    },
    close: unsubscribe,
  };
}

/**
 * What another instance announced (no kinds for this instance's own message), or undefined for
 * anything else. Audiences an older instance did not send, or that are not as this palette writes
 * them, are left out: every stream then hears, which costs a client one needless list at most.
 */
function parseAnnouncement(message: string): { kinds: ListKind[]; audiences: AudienceChange | undefined } | undefined {
  const parsed = parseJsonOrUndefined(message);
  const { origin, kinds, audiences } = (parsed ?? {}) as { origin?: unknown; kinds?: unknown; audiences?: unknown };
  if (typeof origin !== 'string' || !Array.isArray(kinds) || !kinds.every(isListKind)) return undefined;
  if (origin === INSTANCE_ID) return { kinds: [], audiences: undefined };
  return { kinds, audiences: parseAudienceChange(audiences, kinds) };
}
