import { randomBytes } from 'node:crypto';
import { describeError } from '../core/errors.js';
import { LogThrottle } from '../core/log-throttle.js';
import { RecentKeys } from '../core/recent-keys.js';
import type { Logger } from '../core/logger.js';
import type { ToolCatalog } from '../mcp/tool-catalog.js';
import type { ContentCatalog } from '../mcp/content/content-catalog.js';
import type { PromptDefinition } from '../mcp/content/prompt-definition.js';
import type { ResourceDefinition } from '../mcp/content/resource-definition.js';
import { isOffered } from './edge-content.js';
import type { Store } from '../storage/store.js';
import type { LogLine, ProgressReport } from '../mcp/call-stream.js';
import type { InputAsk } from '../input/input-requests.js';
import { MessageBatcher, messagesOf } from './message-batch.js';
import { EDGE_HEARTBEAT_MS, MAX_NOTE_BYTES, parseEdgeBound, siteChannel, type AnswerMessage, type Announcement, type CallMessage, type ContentCallMessage, type EdgeContentItem, type EdgeTool, type Farewell, type ResourceUpdate } from './edge-protocol.js';

export interface EdgeAgentOptions {
  readonly store: Store;
  readonly site: string;
  readonly logger: Logger;
  /** The endpoint's current tools (those of the last deploy). */
  readonly catalog: () => ToolCatalog;
  /** The endpoint's current resources and prompts (absent: it offers none). */
  readonly content?: () => ContentCatalog;
  /**
   * Runs one relayed call through the endpoint (argument check, broker, flow, result checks) under
   * the hub's executionId, and resolves with the result to send back, the questions the flow asked
   * the client instead, or undefined when the call was withdrawn (nobody waits for an answer).
   */
  readonly run: (call: CallMessage, notes: RelayNotes) => Promise<RelayReply | undefined>;
  /** Runs one relayed read, prompt or completion through the endpoint, likewise (absent: refused). */
  readonly runContent?: (call: ContentCallMessage) => Promise<RelayReply | undefined>;
  /** The hub withdrew a call: the flow gets `mcp-tool-cancel`. */
  readonly withdraw: (executionId: string) => void;
}

/**
 * How a relayed round ended on the edge: with the flow's result, with questions for the client, or
 * (a read, prompt or completion) with the reason there is no answer.
 */
export type RelayReply = { readonly result: unknown } | { readonly ask: InputAsk } | { readonly error: string };

/**
 * One relayed call's way back to the hub before its answer: the flow's progress and log lines, each
 * published on the site's answers channel. Resolves once Redis took it (the call's stream counts what
 * is still on its way, and drops past its bound, as for a local client that does not read).
 */
export interface RelayNotes {
  progress(report: ProgressReport): Promise<void>;
  log(line: LogLine): Promise<void>;
}

/** How many call ids an edge remembers, so a call delivered twice runs once. */
const REMEMBERED_CALLS = 10_000;

/**
 * The edge side of relaying for one endpoint: it announces the endpoint's tools on its site's
 * channel every EDGE_HEARTBEAT_MS (the heartbeat hubs judge liveness by) and as soon as its storage
 * is connected, takes the calls sent to this instance and cancels from its site's calls channel, and
 * publishes each answer on its site's answers channel. The edge connects out to Redis only: it needs
 * no inbound port. Its goodbye goes out when it closes or when its storage does, whichever is first.
 */
export class EdgeAgent {
  readonly instance = randomBytes(8).toString('hex');
  private readonly unsubscribe: () => void;
  private readonly stopWatchingStorage: () => void;
  private readonly cancelGoodbye: () => void;
  private readonly timer: NodeJS.Timeout;
  private readonly seen = new RecentKeys(REMEMBERED_CALLS);
  private readonly throttle = new LogThrottle(60_000);
  private closed = false;
  /** Answers for hubs that read batches: those of one turn go out in one message. */
  private readonly answers: MessageBatcher;
  /** The last catalogs announced and their announcement's JSON text. */
  private announced: { readonly catalog: ToolCatalog; readonly content: ContentCatalog | undefined; readonly text: string } | undefined;

  constructor(private readonly options: EdgeAgentOptions) {
    const answersChannel = siteChannel(options.site, 'answers');
    this.answers = new MessageBatcher((text) => options.store.publish(answersChannel, text));
    this.unsubscribe = options.store.subscribe(siteChannel(options.site, 'calls'), (text) => this.received(text));
    // Node-RED may close the storage node before this endpoint's own (asynchronous) close says goodbye.
    this.cancelGoodbye = options.store.publishOnClose(siteChannel(options.site, 'announce'), JSON.stringify(this.farewell()));
    // A store still connecting (every start) or reconnecting would lose the announcement: it goes out once connected.
    this.stopWatchingStorage = options.store.onState((state) => (state === 'ready' ? this.announce() : undefined));
    this.timer = setInterval(() => this.announce(), EDGE_HEARTBEAT_MS).unref();
    this.announce();
  }

  /** Tells hubs at once (after a deploy), rather than at the next heartbeat; nothing while the storage is not connected. */
  announce(): void {
    if (this.closed || this.options.store.state !== 'ready') return;
    const catalog = this.options.catalog();
    const content = this.options.content?.();
    // A catalog is rebuilt, never changed in place: the heartbeat of an unchanged one reuses its text.
    if (this.announced?.catalog !== catalog || this.announced.content !== content) {
      this.announced = { catalog, content, text: JSON.stringify(this.announcement(catalog, content)) };
    }
    this.publishText('announce', this.announced.text, 'announcing its tools');
  }

  private announcement(catalog: ToolCatalog, content: ContentCatalog | undefined): Announcement {
    const tools: EdgeTool[] = [];
    for (const listing of catalog.listings) {
      const definition = catalog.find(listing.name);
      // The palette's own in-process tools (get_flow) stay on the instance they describe, and an
      // endpoint that is also a hub offers only its own tools, not those it relays for other sites.
      // A tool limited to groups or scopes is not offered: a hub restricts what it relays per site instead.
      if (!definition || definition.runInProcess || definition.relay || definition.allowedGroups || definition.requiredScopes) continue;
      const asks = definition.asks ? { asks: [...definition.asks], asksRequired: definition.asksRequired === true, asksBeforeTask: definition.asksBeforeTask === true } : {};
      tools.push({ listing: definition.listing, timeoutMs: definition.timeoutMs, maxDurationMs: definition.maxDurationMs ?? definition.timeoutMs, ...asks });
    }
    const { resources, prompts } = content?.items ?? { resources: [], prompts: [] };
    const offered = {
      resources: resources.filter(isOffered).map((resource) => contentItem(resource.listing, resource)),
      prompts: prompts.filter(isOffered).map((prompt) => contentItem(prompt.listing, prompt)),
    };
    return {
      t: 'announce',
      site: this.options.site,
      instance: this.instance,
      tools,
      ...(offered.resources.length > 0 ? { resources: offered.resources } : {}),
      ...(offered.prompts.length > 0 ? { prompts: offered.prompts } : {}),
      readsBatches: true,
    };
  }

  /**
   * The edge flow's `mcp-resource-updated`: hubs tell the streams that watch the resource under its
   * hub URI. True when it went out (the URI is one of the resources this edge offers).
   */
  resourceUpdated(uri: string): boolean {
    const found = this.closed ? undefined : this.options.content?.().findResource(uri);
    if (!found || !isOffered(found.resource)) return false;
    const update: ResourceUpdate = { t: 'updated', site: this.options.site, instance: this.instance, uri };
    this.publish('announce', update, 'telling hubs a resource changed');
    return true;
  }

  /** Says goodbye (hubs fail this site's pending calls at once) and stops listening. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    // Answers of this turn go before the goodbye that makes hubs fail what is still pending.
    this.answers.flush();
    this.unsubscribe();
    this.stopWatchingStorage();
    this.cancelGoodbye();
    await this.options.store.publish(siteChannel(this.options.site, 'announce'), JSON.stringify(this.farewell())).catch(() => undefined);
  }

  private farewell(): Farewell {
    return { t: 'bye', site: this.options.site, instance: this.instance };
  }

  private received(text: string): void {
    const { messages, dropped } = messagesOf(text);
    for (const message of messages) this.receivedOne(message);
    if (dropped > 0) this.warn('bad', `site ${this.options.site} got ${messages.length + dropped} messages in one on its calls channel; the ${dropped} past ${messages.length} were ignored`);
  }

  private receivedOne(text: string): void {
    const parsed = parseEdgeBound(text);
    if (!parsed.ok) return this.warn('bad', `a message on the calls channel of site ${this.options.site} was ignored: ${parsed.problem}`);
    const message = parsed.value;
    if (message.t === 'cancel') return this.options.withdraw(message.id);
    const runContent = this.options.runContent;
    // Sent to another instance of this site (the one before a restart): the hub ends it on hearing this one.
    if (message.instance !== undefined && message.instance !== this.instance) return;
    // At most once: a round seen before (a duplicate delivery) is not run again. A task's rounds
    // share its id, so the round is part of what is remembered.
    const once = `${message.id}/${message.input?.round ?? 0}`;
    if (this.seen.has(once)) return;
    this.seen.add(once);
    const running = message.t === 'call' ? this.options.run(message, this.notesFor(message.id)) : runContent ? runContent(message) : Promise.resolve({ error: 'this edge offers no resources or prompts' });
    void running.then(
      (reply) => {
        if (reply === undefined) return;
        // Questions go as a local flow's mcp-tool-input payload has them, under the call's id.
        const { id } = message;
        const sent =
          'ask' in reply
            ? { t: 'ask', id, requests: reply.ask.requests, ...(reply.ask.state !== undefined ? { state: reply.ask.state } : {}) }
            : 'error' in reply
              ? ({ t: 'answer', id, result: null, error: reply.error } satisfies AnswerMessage)
              : ({ t: 'answer', id, result: reply.result } satisfies AnswerMessage);
        if (message.readsBatches) this.publishAnswer(JSON.stringify(sent));
        else this.publish('answers', sent, 'answering a call');
      },
      (error: unknown) => this.warn('run', `a call relayed to site ${this.options.site} failed: ${describeError(error)}`),
    );
  }

  private notesFor(id: string): RelayNotes {
    // On the wire as a local flow's payload is (flow-reports.ts), under the call's id; `t` first, so
    // a hub tells a refused note from a refused answer without parsing it.
    const send = async (note: { t: 'progress' | 'log'; id: string }) => {
      const text = JSON.stringify(note);
      if (Buffer.byteLength(text) > MAX_NOTE_BYTES) {
        // The hub would refuse it: drop it here, where the flow's author reads the log.
        return this.warn('notes', `site ${this.options.site} did not relay a ${note.t} of ${Buffer.byteLength(text)} bytes: over ${MAX_NOTE_BYTES}`);
      }
      await this.options.store.publish(siteChannel(this.options.site, 'answers'), text).catch((error: unknown) => {
        this.warn('answers', `site ${this.options.site} could not relay a ${note.t} (${describeError(error)})`);
      });
    };
    return {
      progress: (report) => send({ t: 'progress', id, ...report }),
      log: (line) => send({ t: 'log', id, ...line }),
    };
  }

  /** An answer for a hub that reads batches: with the others of this turn, in one message. */
  private publishAnswer(text: string): void {
    this.answers.send(text).catch((error: unknown) => this.warn('answers', `site ${this.options.site} could not publish (answering a call): ${describeError(error)}`));
  }

  private publish(kind: 'announce' | 'answers', message: object, what: string): void {
    this.publishText(kind, JSON.stringify(message), what);
  }

  private publishText(kind: 'announce' | 'answers', text: string, what: string): void {
    this.options.store.publish(siteChannel(this.options.site, kind), text).catch((error: unknown) => {
      // A Redis ACL that does not allow this site's channels says NOPERM: the edge's user is for another site.
      this.warn(kind, `site ${this.options.site} could not publish (${what}): ${describeError(error)}`);
    });
  }

  private warn(kind: string, line: string): void {
    this.throttle.warn(this.options.logger, kind, line);
  }
}

/** A resource or prompt as the announcement carries it: listing, time limit and completions. */
function contentItem<Listing>(listing: Listing, item: ResourceDefinition | PromptDefinition): EdgeContentItem<Listing> {
  return {
    listing,
    timeoutMs: item.timeoutMs,
    ...(item.completions.size > 0 ? { completions: Object.fromEntries(item.completions) } : {}),
    ...(item.flowCompletions.size > 0 ? { flowCompletions: [...item.flowCompletions] } : {}),
  };
}
