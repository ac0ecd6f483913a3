import type { ServerResponse } from 'node:http';
import { callerKey } from '../../access/caller-key.js';
import type { CallerIdentity } from '../../access/access-policy.js';
import { LogThrottle } from '../../core/log-throttle.js';
import type { Logger } from '../../core/logger.js';
import { sendJsonRpcError } from '../../http/responses.js';
import { writeJsonRpcError } from '../json-rpc-answers.js';
import type { CatalogView } from '../catalog-view.js';
import type { AudienceChange } from '../list-audiences.js';
import type { ListKind } from '../list-changes.js';
import type { ListenRequest } from '../listen-request.js';
import { ListenShares } from '../listen-shares.js';
import { ResourceWatchers } from '../resource-watchers.js';
import { ViewedEventBus } from './viewed-event-bus.js';

/** What became of a flow's `mcp-resource-updated`: sent to open streams, nobody listening, or no such resource. */
export type UpdateDelivery = 'sent' | 'unwatched' | 'unknown';

/**
 * An endpoint's `subscriptions/listen` streams (2026-07-28): the bus they hear (list changes after a
 * deploy, a flow's resource updates), which resource URIs open streams watch, and each caller's share
 * of the streams. The SDK's listen router serves the streams themselves (acknowledgement first,
 * filtering, keep-alive, graceful close on stop); this part feeds it and decides who may open one.
 */
export class ChangeStreams {
  readonly bus: ViewedEventBus;
  private readonly watchers = new ResourceWatchers();
  private readonly shares: ListenShares;
  /** A client hammering a full endpoint would otherwise write a warning per attempt. */
  private readonly refusals = new LogThrottle(60_000);

  constructor(
    private readonly path: string,
    readonly maxStreams: number,
    private readonly logger: Logger,
    viewFor: (caller: CallerIdentity) => CatalogView,
  ) {
    this.bus = new ViewedEventBus(viewFor, (error) => logger.warn(`a change notification on ${path} failed: ${error.message}`));
    this.shares = new ListenShares(maxStreams);
  }

  /**
   * Tells the open streams that asked for them that these lists changed: after a deploy here, each
   * caller of those that changed in its own view; after one `elsewhere`, each caller among the
   * audiences the other instance named (ViewedEventBus).
   */
  listsChanged(kinds: readonly ListKind[], elsewhere?: { readonly audiences: AudienceChange | undefined }): void {
    this.bus.listsChanged(kinds, elsewhere);
  }

  /** A flow's news that a resource the endpoint serves changed, for the open streams that watch its URI. */
  resourceUpdated(uri: string): UpdateDelivery {
    if (!this.watchers.isWatched(uri)) return 'unwatched';
    this.bus.publish({ kind: 'resource_updated', uri });
    return 'sent';
  }

  /**
   * Admits one listen request before the SDK serves it: false (answered already) when its caller holds
   * its share of the streams; otherwise the stream counts against the share and watches its URIs
   * until its connection closes.
   */
  admit(listen: ListenRequest, caller: CallerIdentity, res: ServerResponse): boolean {
    const release = this.shares.take(callerKey(caller));
    if (!release) {
      this.refusePastShare(res, listen.body['id']);
      return false;
    }
    res.once('close', release);
    if (listen.unknown.length > 0) {
      this.logger.debug(`subscriptions/listen on ${this.path}: ${listen.unknown.length} resource URI(s) left out of the acknowledgement, no resource here has them`);
    }
    // Counted while the stream is open, so an update nobody listens to is known as such.
    if (listen.uris.length > 0) res.once('close', this.watchers.watch(listen.uris));
    return true;
  }

  /** The SDK's refusal of a stream past the endpoint's own limit, logged once a minute. */
  onSdkError(error: Error): void {
    if (!error.message.includes('subscription limit reached')) return this.logger.debug(`MCP request on ${this.path} refused: ${error.message}`);
    const line = `subscriptions/listen on ${this.path} refused: ${this.maxStreams} streams are already open`;
    this.refusals.warn(this.logger, 'limit', line, (held) => ` (${held} more refused since the last line)`);
  }

  /** -32603 for a listen of a caller that holds its share already (the SDK's code for a full endpoint). */
  private refusePastShare(res: ServerResponse, id: unknown): void {
    const { perCaller, maxStreams } = this.shares;
    this.refusals.warn(this.logger, 'share', `subscriptions/listen on ${this.path} refused: a caller already holds its ${perCaller} streams`, (held) => ` (${held} more refused since the last line)`);
    const message = `Subscription limit reached: this caller already has ${perCaller} change-notification streams open on ${this.path}, the most one caller may hold (a tenth of the endpoint's ${maxStreams}). Close one to listen again.`;
    if (typeof id === 'string' || typeof id === 'number') return writeJsonRpcError(res, id, { code: -32603, message });
    sendJsonRpcError(res, 200, -32603, message);
  }
}
