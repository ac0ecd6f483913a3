import { createHash } from 'node:crypto';
import { callerFields } from '../access/caller-fields.js';
import { describeError } from '../core/errors.js';
import { LogThrottle } from '../core/log-throttle.js';
import type { Logger } from '../core/logger.js';
import type { Mutable } from '../core/mutable.js';
import type { ExecutionRequest } from '../execution/broker.js';
import { parseToolConfig, TOOL_NAME_PATTERN, type ToolDefinition } from '../mcp/tool-definition.js';
import type { Store } from '../storage/store.js';
import { DEFAULT_EDGE_URI_NAMING, hubToolName, hubUri } from './edge-naming.js';
import type { ContentCall } from '../mcp/content/content-types.js';
import type { PromptDefinition } from '../mcp/content/prompt-definition.js';
import type { ResourceDefinition } from '../mcp/content/resource-definition.js';
import { edgeRequestOf, qualifyContents, qualifyMessages, siteContent } from './edge-content.js';
import type { LogLine, ProgressReport } from '../mcp/call-stream.js';
import type { InputAsk } from '../input/input-requests.js';
import { isLogLevel } from '../mcp/log-levels.js';
import { MessageBatcher, messagesOf } from './message-batch.js';
import { EDGE_STALE_MS, EDGE_STALE_TEXT, parseHubBound, siteChannel, type Announcement, type CallMessage, type CancelMessage, type ContentCallMessage, type EdgeTool, type LogNote, type ProgressNote, type RelayedCaller } from './edge-protocol.js';

/** A tool of an edge as the hub serves it: where to send its calls. */
export interface RelayTarget {
  readonly site: string;
  /** The tool's name on the edge. */
  readonly tool: string;
}

interface Site {
  instance: string;
  /** The instance before `instance`: one that speaks up again is a second edge for the site, not a restart. */
  previousInstance: string | undefined;
  lastSeen: number;
  /** Of the announcement the tools were built from: an unchanged one only refreshes `lastSeen`. */
  fingerprint: string;
  builtAt: number;
  tools: readonly ToolDefinition[];
  resources: readonly ResourceDefinition[];
  prompts: readonly PromptDefinition[];
  pending: number;
  /** Its instance reads several calls in one message: they go out batched. */
  readsBatches: boolean;
  /** Resource updates heard in the current second (a flood is cut, not relayed). */
  updates: { second: number; count: number };
}

export interface EdgeHubOptions {
  readonly store: Store;
  readonly sites: readonly string[];
  /** Sites whose tools only members of these groups see and may call (absent: every caller let in). */
  readonly siteGroups?: ReadonlyMap<string, readonly string[]>;
  /** How edge tools and prompts are named on the hub: `{site}` and `{tool}` are replaced. */
  readonly naming: string;
  /** How edge resources' URIs read on the hub: `{site}` and `{uri}` are replaced (absent: the default). */
  readonly uriNaming?: string;
  /** Calls one site may have pending on this hub endpoint at once. */
  readonly maxPendingPerSite: number;
  readonly endpoint: string;
  readonly logger: Logger;
  /** The set of live edge tools, resources or prompts changed: the endpoint rebuilds its catalogs. */
  readonly onToolsChanged: () => void;
  /** An edge's answer for a pending call (the endpoint's settle); 'unknown' when nothing waits for it. */
  readonly deliver: (executionId: string, result: unknown) => 'settled' | 'unknown';
  /** A pending read, prompt or completion ends without an answer, for this reason (the endpoint's settle with an error). */
  readonly failContent?: (executionId: string, message: string) => void;
  /** A site's flow says one of its resources changed: the hub's URI, for the streams that watch it. */
  readonly resourceUpdated?: (site: string, uri: string) => void;
  /** The site went away: its pending calls end now, with this message. */
  readonly failSite: (site: string, message: string) => void;
  /** The edge flow asked the client (the endpoint's: it asks, checks the answers, and sends the next round). */
  readonly ask: (executionId: string, ask: InputAsk) => 'settled' | 'unknown';
  /** The edge flow's progress for a pending call (the endpoint's: time limit restarted, client told). */
  readonly progress?: (executionId: string, report: ProgressReport) => void;
  /** A log line of the edge flow for a pending call (the endpoint's: its client told, at its level). */
  readonly log?: (executionId: string, line: LogLine) => void;
}

/** How an edge opens a progress report or log line (edge-agent.ts), told apart without parsing it. */
const NOTE_OPENING = /^\{"t":"(?:progress|log)"/;

/** A pending call: the site it went to, and the instance of that site it was sent to. */
interface PendingCall {
  readonly site: string;
  readonly instance: string;
  /** Set for a read, prompt or completion: its answer is content, and its failure an error. */
  readonly content?: ContentCall['kind'];
}

/** A tool of a site the hub forgot: a call to it is told the site is offline, not that the tool is unknown. */
interface OfflineTool {
  readonly site: string;
  readonly why: string;
}

/** A hub cannot rebuild a site's tools more often than this, whatever the edge sends. */
const MIN_REBUILD_INTERVAL_MS = 1_000;
/** Resource updates a hub relays per site and second; the rest of a flood is dropped (and said once a minute). */
const MAX_UPDATES_PER_SECOND = 50;

/**
 * The hub side of edge relaying for one endpoint: it listens to the configured sites' channels,
 * keeps the tools each live site announced (compiled once per change, like declared tools), sends
 * calls and cancels to the site's channel and hands answers to the endpoint's broker. A site that
 * stops announcing for EDGE_STALE_MS, or says goodbye, disappears from the catalog and its pending
 * calls end at once with an error naming it; so do the calls pending on a site's instance when a new
 * instance announces itself (the edge restarted: the old one will never answer). A call to a tool of
 * a forgotten site is told that site is offline until the site is back (or the hub endpoint stops).
 */
export class EdgeHub {
  private readonly sites = new Map<string, Site>();
  /** executionId → where it went, for the pending calls sent to an edge. */
  private readonly pending = new Map<string, PendingCall>();
  /** Hub name → its forgotten site: at most the configured sites' last announced tools. */
  private readonly offlineTools = new Map<string, OfflineTool>();
  private readonly unsubscribers: Array<() => void> = [];
  private readonly staleTimer: NodeJS.Timeout;
  private readonly throttle = new LogThrottle(60_000);
  private readonly uriNaming: string;
  /** Site name → the batcher of its calls channel, for sites whose instance reads batches. */
  private readonly batchers = new Map<string, MessageBatcher>();

  constructor(private readonly options: EdgeHubOptions) {
    this.uriNaming = options.uriNaming ?? DEFAULT_EDGE_URI_NAMING;
    for (const site of options.sites) {
      this.unsubscribers.push(options.store.subscribe(siteChannel(site, 'announce'), (text) => this.heard(site, text)));
      this.unsubscribers.push(options.store.subscribe(siteChannel(site, 'answers'), (text) => this.answered(site, text)));
    }
    this.staleTimer = setInterval(() => this.forgetStale(), 1_000).unref();
  }

  /** The live edge tools, named as the hub serves them. */
  tools(): ToolDefinition[] {
    return [...this.sites.values()].flatMap((site) => site.tools);
  }

  /** The live edge resources and prompts, named as the hub serves them. */
  content(): { readonly resources: readonly ResourceDefinition[]; readonly prompts: readonly PromptDefinition[] } {
    const sites = [...this.sites.values()];
    return { resources: sites.flatMap((site) => site.resources), prompts: sites.flatMap((site) => site.prompts) };
  }

  /** The live sites and how many tools each offers (for the status and the sidebar). */
  get liveSites(): ReadonlyMap<string, number> {
    return new Map([...this.sites].map(([name, site]) => [name, site.tools.length]));
  }

  /** The site of `toolName` when it is a tool of a site that went away, and what to tell its caller. */
  offline(toolName: string): { readonly site: string; readonly message: string; readonly allowedGroups?: readonly string[] } | undefined {
    const tool = this.offlineTools.get(toolName);
    if (!tool) return undefined;
    const allowedGroups = this.options.siteGroups?.get(tool.site);
    return {
      site: tool.site,
      message: `Site ${tool.site} is offline (${tool.why}): tool "${toolName}" is back when its edge Node-RED announces it again.`,
      ...(allowedGroups ? { allowedGroups } : {}),
    };
  }

  /**
   * Sends one call to its site. Throws (the broker ends the call with that error) when the site is
   * not live or has too many calls pending; a storage failure ends it the same way, at once.
   */
  send(request: ExecutionRequest, target: RelayTarget, caller: RelayedCaller, protocolVersion: string): void {
    const site = this.liveSite(target.site);
    // Who is calling, and nothing else of the hub's context: it becomes msg.mcp on the edge.
    const who = callerFields(caller);
    // Member by member, not spread from temporary objects: every relayed call builds one.
    const message = { t: 'call', id: request.executionId, instance: site.instance, tool: target.tool, arguments: request.arguments, caller: who, hub: this.options.endpoint, protocolVersion } as Mutable<CallMessage>;
    // What the client will see of the call before its result: the edge relays no log line below it.
    if (request.progressToken) message.progress = true;
    if (isLogLevel(request.logLevel)) message.logLevel = request.logLevel;
    if (request.input !== undefined) message.input = request.input;
    if (request.clientCapabilities !== undefined) message.clientCapabilities = request.clientCapabilities;
    message.readsBatches = true;
    this.dispatch(request.executionId, target.site, site, message);
  }

  /**
   * Sends one read, prompt or completion of a site's item, as the edge names it. Throws like `send`;
   * a URI that is not one of the site's (it cannot be: the hub matched it against the site's own) too.
   */
  sendContent(request: ExecutionRequest, call: ContentCall): void {
    const target = call.relay!;
    const site = this.liveSite(target.site);
    const relayed = edgeRequestOf(call, target.site, this.uriNaming);
    const message: ContentCallMessage = {
      t: 'content',
      id: request.executionId,
      instance: site.instance,
      request: relayed,
      caller: callerFields(call.context),
      hub: this.options.endpoint,
      protocolVersion: call.context.protocolVersion,
      ...(call.kind !== 'completion' && call.input !== undefined ? { input: call.input } : {}),
      readsBatches: true,
    };
    this.dispatch(request.executionId, target.site, site, message, call.kind);
  }

  /** The live site a call goes to, or the reason it cannot go (thrown: the broker ends the call with it). */
  private liveSite(siteName: string): Site {
    const site = this.sites.get(siteName);
    if (!site) throw new Error(`site ${siteName} is not connected (its edge Node-RED stopped announcing its tools)`);
    if (site.pending >= this.options.maxPendingPerSite) throw new Error(`site ${siteName} already has ${this.options.maxPendingPerSite} calls pending; retry shortly`);
    return site;
  }

  private dispatch(executionId: string, siteName: string, site: Site, message: CallMessage | ContentCallMessage, content?: ContentCall['kind']): void {
    site.pending += 1;
    this.pending.set(executionId, content ? { site: siteName, instance: site.instance, content } : { site: siteName, instance: site.instance });
    const fail = (why: string) => this.end(executionId, `Site ${siteName} could not be reached: ${why}.`);
    this.publishCall(siteName, site, JSON.stringify(message)).then(
      // The site announces on another connection than it listens for calls on: it can look alive while
      // nobody would run the call (right after a Redis restart, or an ACL that forbids its calls channel).
      (listeners) => (listeners === 0 ? fail('nobody is listening for its calls right now; retry shortly') : undefined),
      (error: unknown) => fail(describeError(error)),
    );
  }

  /** Ends a pending call without the edge's answer: a tool error for a tool, an error for content. */
  private end(executionId: string, text: string): void {
    const call = this.pending.get(executionId);
    if (!call || !this.release(executionId)) return;
    if (call.content && this.options.failContent) this.options.failContent(executionId, text);
    else this.options.deliver(executionId, { content: [{ type: 'text', text }], isError: true });
  }

  /** The hub gave up on a call (time-out, client cancel, stop): the edge learns it and drops its answer. */
  withdraw(executionId: string, reason: string): void {
    const call = this.pending.get(executionId);
    if (!call || !this.release(executionId)) return;
    const message: CancelMessage = { t: 'cancel', id: executionId, reason };
    // Through the same batcher as the call, so a cancel never overtakes the call it cancels.
    this.publishCall(call.site, this.sites.get(call.site), JSON.stringify(message)).catch(() => undefined);
  }

  /** One message on a site's calls channel: batched with the others of this turn when its instance reads batches. */
  private publishCall(siteName: string, site: Site | undefined, text: string): Promise<number> {
    if (!site?.readsBatches) return this.options.store.publish(siteChannel(siteName, 'calls'), text);
    let batcher = this.batchers.get(siteName);
    if (!batcher) {
      const channel = siteChannel(siteName, 'calls');
      batcher = new MessageBatcher((batch) => this.options.store.publish(channel, batch));
      this.batchers.set(siteName, batcher);
    }
    return batcher.send(text);
  }

  /** Withdraws every call still pending (the hub endpoint stops or is redeployed), then stops listening. */
  close(): void {
    clearInterval(this.staleTimer);
    for (const executionId of [...this.pending.keys()]) this.withdraw(executionId, 'stopped');
    // The cancels go now, not at the end of the turn, while the store is certainly still open.
    for (const batcher of this.batchers.values()) batcher.flush();
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.sites.clear();
    this.pending.clear();
    this.offlineTools.clear();
  }

  private heard(siteName: string, text: string): void {
    // Most announcements are the heartbeat, the same text as the last one: it proves the site alive
    // and needs neither parsing nor checking again.
    const now = Date.now();
    const fingerprint = createHash('sha256').update(text).digest('base64url');
    const known = this.sites.get(siteName);
    if (known && known.fingerprint === fingerprint) {
      known.lastSeen = now;
      return;
    }
    const parsed = parseHubBound(text, siteName, 'announce');
    if (!parsed.ok) return this.refuse(siteName, `an announcement of site ${siteName} was refused: ${parsed.problem}`);
    const message = parsed.value;
    if (message.t === 'bye') {
      const site = this.sites.get(siteName);
      if (site?.instance === message.instance) this.forget(siteName, `site ${siteName} stopped`);
      return;
    }
    if (message.t === 'updated') return this.updated(siteName, message.instance, message.uri, now);
    if (message.t !== 'announce') return;
    const restarted = known !== undefined && known.instance !== message.instance;
    if (restarted) {
      // The instance before the current one is alive: two edges speak for the site. The newer one keeps it.
      if (message.instance === known.previousInstance) return this.refuse(siteName, `two Node-RED instances announce site ${siteName}; calls go to the one that started last (run one edge per site name)`);
      this.restarted(siteName, known, message.instance, message.readsBatches === true, now);
    }
    // A flood of changing announcements costs one rebuild a second at most (a new instance's tools wait for its next heartbeat).
    if (known && now - known.builtAt < MIN_REBUILD_INTERVAL_MS) {
      if (!restarted) this.refuse(siteName, `site ${siteName} announces changed tools faster than once a second; the extra announcements were ignored`);
      return;
    }
    const tools = this.build(siteName, message);
    const naming = { site: siteName, naming: this.options.naming, uriNaming: this.uriNaming };
    const { resources, prompts } = siteContent(message, naming, this.options.siteGroups?.get(siteName), (line) => this.refuse(siteName, line));
    this.sites.set(siteName, {
      instance: message.instance,
      previousInstance: known?.previousInstance,
      lastSeen: now,
      fingerprint,
      builtAt: now,
      tools,
      resources,
      prompts,
      pending: known?.pending ?? 0,
      readsBatches: message.readsBatches === true,
      updates: known?.updates ?? { second: 0, count: 0 },
    });
    for (const [name, tool] of this.offlineTools) if (tool.site === siteName) this.offlineTools.delete(name);
    this.options.onToolsChanged();
  }

  /**
   * A new instance of a site announced itself (its edge was restarted, faster than the hub forgets a
   * silent site): the calls sent to the instance before can never be answered, since an instance
   * runs only the calls sent to it. They end now, not at their time limits.
   */
  private restarted(siteName: string, site: Site, instance: string, readsBatches: boolean, now: number): void {
    const ended: string[] = [];
    for (const [id, call] of this.pending) if (call.site === siteName && call.instance === site.instance) ended.push(id);
    site.previousInstance = site.instance;
    site.instance = instance;
    // A restart may bring another version: what it reads counts before its tools are rebuilt.
    site.readsBatches = readsBatches;
    site.lastSeen = now;
    // The tools were built from the instance before's announcement: neither its heartbeat nor the new
    // one's may pass as unchanged now.
    site.fingerprint = '';
    if (ended.length === 0) return;
    this.options.logger.warn(`site ${siteName} restarted (a new instance announced itself): ${ended.length} call(s) pending on the one before ended`);
    for (const id of ended) {
      this.end(id, `Site ${siteName} restarted before answering: the edge Node-RED the call was sent to was replaced by a new instance.`);
    }
  }

  /**
   * The site's flow says a resource changed: relayed under its hub URI, from the instance the hub
   * listens to, at most MAX_UPDATES_PER_SECOND a second. Whether the URI is one of this site's
   * resources is the endpoint's to judge (it knows which item a URI reaches).
   */
  private updated(siteName: string, instance: string, uri: string, now: number): void {
    const site = this.sites.get(siteName);
    if (!site || site.instance !== instance) return;
    const second = Math.floor(now / 1000);
    if (site.updates.second !== second) site.updates = { second, count: 0 };
    site.updates.count += 1;
    if (site.updates.count > MAX_UPDATES_PER_SECOND) return this.refuse(siteName, `site ${siteName} sends more than ${MAX_UPDATES_PER_SECOND} resource updates a second; the rest were dropped`);
    this.options.resourceUpdated?.(siteName, hubUri(this.uriNaming, siteName, uri));
  }

  private build(siteName: string, announcement: Announcement): ToolDefinition[] {
    const tools: ToolDefinition[] = [];
    const allowedGroups = this.options.siteGroups?.get(siteName);
    for (const offered of announcement.tools) {
      const name = hubToolName(this.options.naming, siteName, offered.listing.name);
      try {
        if (!TOOL_NAME_PATTERN.test(name)) throw new Error(`its hub name ${JSON.stringify(name.slice(0, 140))} is not a valid tool name`);
        tools.push({ ...definitionOf(name, offered), relay: { site: siteName, tool: offered.listing.name }, ...(allowedGroups ? { allowedGroups } : {}) });
      } catch (error) {
        this.refuse(siteName, `tool ${JSON.stringify(offered.listing.name.slice(0, 128))} of site ${siteName} was refused: ${describeError(error)}`);
      }
    }
    return tools;
  }

  private answered(siteName: string, text: string): void {
    const { messages, dropped } = messagesOf(text);
    for (const message of messages) this.answeredOne(siteName, message);
    if (dropped > 0) this.refuse(siteName, `site ${siteName} sent ${messages.length + dropped} messages in one; the ${dropped} past ${messages.length} were refused`);
  }

  private answeredOne(siteName: string, text: string): void {
    const parsed = parseHubBound(text, siteName, 'answers');
    if (parsed.ok && (parsed.value.t === 'progress' || parsed.value.t === 'log')) return this.noted(siteName, parsed.value);
    // A refused progress report or log line costs its client that one line, as a local flow's does: the call goes on.
    if (!parsed.ok && NOTE_OPENING.test(text)) return this.refuse(siteName, `a progress report or log line from site ${siteName} was refused: ${parsed.problem}`);
    if (parsed.ok && parsed.value.t === 'ask') return this.asked(siteName, parsed.value.id, parsed.value.ask);
    if (!parsed.ok || parsed.value.t !== 'answer') {
      // An oversized answer still names its call: end that call with a clear error rather than at its time limit.
      const id = /"id"\s*:\s*"([0-9a-f]{32})"/.exec(text.slice(0, 200))?.[1];
      if (id && this.pending.get(id)?.site === siteName) this.end(id, `Site ${siteName} sent an answer the hub refused: ${parsed.ok ? 'not an answer' : parsed.problem}.`);
      return this.refuse(siteName, `an answer from site ${siteName} was refused: ${parsed.ok ? 'not an answer' : parsed.problem}`);
    }
    const { id, result, error } = parsed.value;
    // Only the site the call went to may answer it; anything else is late, repeated or forged.
    const call = this.pending.get(id);
    if (call?.site !== siteName) return;
    if (call.content === undefined) {
      this.release(id);
      this.options.deliver(id, result);
      return;
    }
    if (error !== undefined) return this.end(id, `Site ${siteName}: ${error}`);
    this.release(id);
    // The edge answers under its own URIs: the client reads them here under the hub's.
    const qualify = (uri: string) => hubUri(this.uriNaming, siteName, uri);
    this.options.deliver(id, call.content === 'resource-read' ? qualifyContents(result, qualify) : call.content === 'prompt-get' ? qualifyMessages(result, qualify) : result);
  }

  /** The flow of a pending call asked the client: its round ends here, and the next one is a new call to the site. */
  private asked(siteName: string, id: string, ask: InputAsk): void {
    if (this.pending.get(id)?.site !== siteName) return;
    this.release(id);
    this.options.ask(id, ask);
  }

  /**
   * A progress report or log line for a pending call. Only the site the call went to speaks for it;
   * anything else (late, after the call ended, or another site's) is dropped unsaid, since a flow may
   * well report after its caller went away.
   */
  private noted(siteName: string, note: ProgressNote | LogNote): void {
    if (this.pending.get(note.id)?.site !== siteName) return;
    if (note.t === 'progress') this.options.progress?.(note.id, note.report);
    else this.options.log?.(note.id, note.line);
  }

  private release(executionId: string): boolean {
    const call = this.pending.get(executionId);
    if (call === undefined) return false;
    this.pending.delete(executionId);
    const site = this.sites.get(call.site);
    if (site) site.pending = Math.max(0, site.pending - 1);
    return true;
  }

  private forgetStale(): void {
    const now = Date.now();
    for (const [name, site] of this.sites) {
      if (now - site.lastSeen > EDGE_STALE_MS) this.forget(name, `site ${name} stopped answering (no announcement for ${EDGE_STALE_TEXT})`);
    }
  }

  private forget(siteName: string, why: string): void {
    const site = this.sites.get(siteName);
    if (!site) return;
    this.sites.delete(siteName);
    for (const tool of site.tools) this.offlineTools.set(tool.name, { site: siteName, why });
    for (const [id, call] of [...this.pending]) if (call.site === siteName) this.pending.delete(id);
    this.options.logger.warn(`${why}: its tools are withdrawn from ${this.options.endpoint}`);
    this.options.failSite(siteName, `Site ${siteName} went away before answering (${why}).`);
    this.options.onToolsChanged();
  }

  private refuse(siteName: string, line: string): void {
    this.throttle.warn(this.options.logger, `${siteName} ${line.slice(0, 60)}`, line);
  }
}

/** A hub-side tool definition from what an edge announced, compiled like a declared tool. */
function definitionOf(name: string, offered: EdgeTool): ToolDefinition {
  const listing = offered.listing;
  const annotations = listing.annotations ?? {};
  return parseToolConfig({
    toolName: name,
    title: listing.title ?? annotations.title ?? '',
    description: listing.description ?? '',
    // Objects, as a hand-written flow may give them: parseToolConfig checks them without a JSON round trip.
    inputSchema: listing.inputSchema ?? { type: 'object' },
    outputSchema: listing.outputSchema ?? '',
    readOnlyHint: annotations.readOnlyHint === true,
    destructiveHint: annotations.destructiveHint === true,
    idempotentHint: annotations.idempotentHint === true,
    openWorldHint: annotations.openWorldHint === true,
    endpoint: '*',
    // An edge tool that may run as a task does so on the hub: its record in the hub's storage, the edge
    // flow running it as a call that may take up to the tool's maximum duration.
    taskSupport: listing.execution?.taskSupport ?? 'forbidden',
    // A tool that asks the client is asked for by the hub, which checks the answers before the edge sees them.
    ...(offered.asks !== undefined ? { asks: offered.asks, asksRequired: offered.asksRequired === true, asksBeforeTask: offered.asksBeforeTask === true } : {}),
    timeout: String(Math.max(1, Math.round(offered.timeoutMs / 1000))),
    maxDuration: String(Math.max(1, Math.round(offered.maxDurationMs / 1000))),
  });
}
