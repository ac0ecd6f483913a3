import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import type { CatalogView } from '../catalog-view.js';
import { audienceIncludes, type AudienceChange } from '../list-audiences.js';
import { fingerprintLists, listChangedEvent, type ListFingerprints, type ListKind } from '../list-changes.js';

interface Listener {
  readonly deliver: (event: ServerEvent) => void;
  /** Whose stream it is, when it was opened through `openFor`. */
  readonly caller: CallerIdentity | undefined;
  /** What the caller's lists looked like when it last heard (or when its stream opened). */
  seen: ListFingerprints | undefined;
}

/**
 * The event bus of an endpoint's `subscriptions/listen` streams that knows whose each stream is, so a
 * deploy tells each caller only of the lists that changed in its own view: a change to an item limited
 * to other groups is no news to it. The SDK's listen router subscribes while it serves a listen request;
 * the endpoint serves that request inside `openFor`, and the caller travels to `subscribe` with it.
 */
export class ViewedEventBus implements ServerEventBus {
  private readonly listeners = new Set<Listener>();
  private readonly opening = new AsyncLocalStorage<CallerIdentity>();
  /** Each view's lists, digested once (a view lives for one deploy and is shared by its callers). */
  private readonly digests = new WeakMap<CatalogView, ListFingerprints>();

  constructor(
    private readonly viewFor: (caller: CallerIdentity) => CatalogView,
    private readonly onerror: (error: Error) => void,
  ) {}

  /** Serves one listen request of `caller`: the stream it opens is known as that caller's. */
  openFor<T>(caller: CallerIdentity, open: () => T): T {
    return this.opening.run(caller, open);
  }

  subscribe(deliver: (event: ServerEvent) => void): () => void {
    const caller = this.opening.getStore();
    const listener: Listener = { deliver, caller, seen: caller ? this.digest(caller) : undefined };
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** A resource update (and anything else not about lists) reaches every stream; the SDK filters by URI. */
  publish(event: ServerEvent): void {
    for (const listener of this.listeners) this.send(listener, event);
  }

  /**
   * Lists changed by a deploy here: each stream hears of those among `kinds` that changed in its
   * caller's view since it last heard. Changed by a deploy on another instance (`elsewhere`, heard
   * through the storage), whose lists this instance may not serve yet: each stream hears of a list if
   * its caller is among the audiences that instance named for it (every stream, when it named none).
   */
  listsChanged(kinds: readonly ListKind[], elsewhere?: { readonly audiences: AudienceChange | undefined }): void {
    for (const listener of this.listeners) {
      let heard = kinds;
      if (elsewhere !== undefined) {
        const { audiences } = elsewhere;
        const caller = listener.caller;
        if (audiences !== undefined && caller !== undefined) heard = kinds.filter((kind) => audienceIncludes(audiences[kind] ?? [null], caller.groups));
      } else if (listener.caller !== undefined) {
        const now = this.digest(listener.caller);
        const before = listener.seen;
        heard = kinds.filter((kind) => before === undefined || before[kind] !== now[kind]);
        listener.seen = now;
      }
      for (const kind of heard) this.send(listener, listChangedEvent(kind));
    }
  }

  private digest(caller: CallerIdentity): ListFingerprints {
    const view = this.viewFor(caller);
    let digest = this.digests.get(view);
    if (digest === undefined) {
      digest = fingerprintLists(view.tools, view.content);
      this.digests.set(view, digest);
    }
    return digest;
  }

  private send(listener: Listener, event: ServerEvent): void {
    try {
      listener.deliver(event);
    } catch (error) {
      this.onerror(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
