import type { Prompt, Resource, Tool } from '@modelcontextprotocol/server';
import { DEFAULTS } from '../core/defaults.js';
import { isPlainObject } from '../core/is-plain-object.js';
import type { Mutable } from '../core/mutable.js';
import { parseJsonOrUndefined } from '../core/parse-json.js';
import type { StoreKey } from '../storage/store.js';
import type { LogLine, ProgressReport } from '../mcp/call-stream.js';
import { parseLogPayload, parseProgressPayload } from '../mcp/flow-reports.js';
import { isLogLevel, type LogLevel } from '../mcp/log-levels.js';
import type { RoundInput } from '../execution/broker.js';
import { parseInputPayload, type InputAsk, type InputKind } from '../input/input-requests.js';
import { MAX_INPUT_ROUNDS } from '../input/input-rounds.js';
import type { CompletionRef } from '../mcp/content/content-types.js';
import type { ResourceTemplateListing } from '../mcp/content/resource-definition.js';

/**
 * What hubs and edges say to each other through Redis publish/subscribe. Every channel of a site is
 * `<key prefix>:edge:<site>:<kind>`, so one Redis ACL channel pattern per edge user
 * (`&<prefix>:edge:<site>:*`) lets an edge speak only as its own site: the site a hub believes is
 * the channel's, never a field an edge writes. Every message is JSON with a `t` (type) field.
 */

/** Site names: lower-case letters, digits and '-', as they appear in tool names and channel names. */
export const SITE_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** An edge announces its tools this often; a hub forgets a site it has not heard from in EDGE_STALE_MS. */
export const EDGE_HEARTBEAT_MS = 2_000;
export const EDGE_STALE_MS = 3 * EDGE_HEARTBEAT_MS + 500;
/** EDGE_STALE_MS as logs, docs/edge-relay.md and the help say it ("6.5 s"): one figure everywhere. */
export const EDGE_STALE_TEXT = `${EDGE_STALE_MS / 1000} s`;
/** Limits on what an edge may send a hub: an edge is untrusted input. */
export const MAX_ANNOUNCEMENT_BYTES = 512 * 1024;
/**
 * An edge clamps each result to DEFAULTS.maxResultBytes, as for a local call; the answer around it
 * (type, call id) needs room too, or a result the edge accepted near the limit would be refused here.
 */
export const MAX_ANSWER_BYTES = DEFAULTS.maxResultBytes + 4 * 1024;
export const MAX_EDGE_TOOLS = 200;
export const MAX_EDGE_RESOURCES = 200;
export const MAX_EDGE_PROMPTS = 200;
/** A resource update names one URI: longer than any URI a client would use is refused. */
export const MAX_UPDATED_URI_LENGTH = 2048;
/** Why an edge could not answer a read, prompt or completion: a line for people, not a document. */
export const MAX_ANSWER_ERROR_LENGTH = 2000;
/** A progress report or log line an edge relays for a call: one line for people, not a result. */
export const MAX_NOTE_BYTES = 64 * 1024;

export type ChannelKind = 'announce' | 'calls' | 'answers';

export function siteChannel(site: string, kind: ChannelKind): StoreKey {
  return { namespace: 'edge', kind: site, id: kind };
}

/** One tool as an edge offers it: its listing, and the time limits the hub applies to it. */
export interface EdgeTool {
  readonly listing: Tool;
  readonly timeoutMs: number;
  readonly maxDurationMs: number;
  /** What the edge flow may ask the client: the hub asks it and checks the answers, as for its own tools. */
  readonly asks?: readonly InputKind[];
  readonly asksRequired?: boolean;
  readonly asksBeforeTask?: boolean;
}

/**
 * One resource (a fixed URI or a template) or prompt as an edge offers it: its listing as the edge
 * serves it, the time limit the hub applies to it, and its completions. Lists set in the editor are
 * answered by the hub itself; the names in `flowCompletions` go to the edge flow.
 */
export interface EdgeContentItem<Listing> {
  readonly listing: Listing;
  readonly timeoutMs: number;
  readonly completions?: Readonly<Record<string, readonly string[]>>;
  readonly flowCompletions?: readonly string[];
}
export type EdgeResource = EdgeContentItem<Resource | ResourceTemplateListing>;
export type EdgePrompt = EdgeContentItem<Prompt>;

export interface Announcement {
  readonly t: 'announce';
  readonly site: string;
  /** Which process speaks for the site (a new one per start): two at once is a misconfiguration. */
  readonly instance: string;
  readonly tools: readonly EdgeTool[];
  /** Absent from edges of before content was relayed: they offer none. */
  readonly resources?: readonly EdgeResource[];
  readonly prompts?: readonly EdgePrompt[];
  /** This instance reads several calls in one message (message-batch.ts); absent from edges of before batches. */
  readonly readsBatches?: true;
}

/** An edge flow's `mcp-resource-updated` for a resource it offers (the edge's own URI). */
export interface ResourceUpdate {
  readonly t: 'updated';
  readonly site: string;
  readonly instance: string;
  readonly uri: string;
}

/** Sent by an edge that stops on purpose, so hubs fail its pending calls at once. */
export interface Farewell {
  readonly t: 'bye';
  readonly site: string;
  readonly instance: string;
}

/** Who is calling, as the hub knows them: it becomes `msg.mcp` on the edge. */
export interface RelayedCaller {
  readonly subject?: string;
  readonly email?: string;
  readonly groups?: readonly string[];
  readonly client?: string;
}

/**
 * The caller as an edge's flow may see it in `msg.mcp`: only the fields a hub vouches for, each of the
 * type it must have (the message crossed Redis, so its shape is checked again, not trusted).
 */
export function vouchedCaller(caller: RelayedCaller): RelayedCaller {
  const { subject, email, groups, client } = caller;
  // Member by member, not spread from temporary objects: every relayed call vouches for its caller.
  const vouched: Mutable<RelayedCaller> = {};
  if (typeof subject === 'string') vouched.subject = subject;
  if (typeof email === 'string') vouched.email = email;
  if (Array.isArray(groups)) vouched.groups = groups.filter((group): group is string => typeof group === 'string');
  if (typeof client === 'string') vouched.client = client;
  return vouched;
}

export interface CallMessage {
  readonly t: 'call';
  /** The hub's executionId: unguessable, so an answer for it can only come from the site that got it. */
  readonly id: string;
  /**
   * The instance of the site the hub sends it to (the one it last heard announce): another instance
   * does not run it, so a hub that hears a new instance knows the calls sent before will never be
   * answered. Absent from hubs of before this field: every instance runs those.
   */
  readonly instance?: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly caller: RelayedCaller;
  /** The hub endpoint the call came through (for the edge flow's information). */
  readonly hub: string;
  readonly protocolVersion: string;
  /** The hub's client sent a progress token: the edge's flow is told so (its progress is relayed either way). */
  readonly progress?: true;
  /** The lowest level of log line the hub's client asked for; absent: the edge relays none. */
  readonly logLevel?: LogLevel;
  /** A later round of a call whose flow asked the client: the answers (checked on the hub) and the flow's state. */
  readonly input?: RoundInput;
  /** What a 2026-07-28 client declared it can be asked (for tools that ask). */
  readonly clientCapabilities?: Record<string, unknown>;
  /** The hub reads several answers in one message (message-batch.ts); absent from hubs of before batches. */
  readonly readsBatches?: true;
}

/** A read, prompt or completion as the edge serves it: its own URI, prompt name and template text. */
export type RelayedContentRequest =
  | { readonly kind: 'resource-read'; readonly uri: string }
  | { readonly kind: 'prompt-get'; readonly name: string; readonly arguments: Record<string, string> }
  | {
      readonly kind: 'completion';
      readonly ref: CompletionRef;
      readonly argument: { readonly name: string; readonly value: string };
      readonly arguments?: Record<string, string>;
    };

/** A read, prompt or completion of an edge's content, sent like a call and answered like one. */
export interface ContentCallMessage {
  readonly t: 'content';
  readonly id: string;
  readonly instance?: string;
  readonly request: RelayedContentRequest;
  readonly caller: RelayedCaller;
  readonly hub: string;
  readonly protocolVersion: string;
  /** A later round of a read or prompt whose flow asked the client (2026-07-28). */
  readonly input?: RoundInput;
  readonly readsBatches?: true;
}

export interface CancelMessage {
  readonly t: 'cancel';
  readonly id: string;
  readonly reason: string;
}

export interface AnswerMessage {
  readonly t: 'answer';
  readonly id: string;
  /**
   * The edge's CallToolResult; for content, the read's contents, the prompt's messages or the
   * completion's values (each checked there, and again on the hub).
   */
  readonly result: unknown;
  /** Why a read, prompt or completion has no answer (the edge's refusal or its flow's error). */
  readonly error?: string;
}

/**
 * The edge flow asked the client instead of answering (`mcp-tool-input`): the hub asks, checks the
 * answers and sends the next round. On the wire the questions are `requests` and `state`, as in the
 * flow's own message.
 */
export interface AskMessage {
  readonly t: 'ask';
  readonly id: string;
  readonly ask: InputAsk;
}

/** The edge flow's progress for a pending call: it keeps the call alive on the hub, and reaches its client. */
export interface ProgressNote {
  readonly t: 'progress';
  readonly id: string;
  readonly report: ProgressReport;
}

/** A log line of the edge flow for a pending call, at or above the level the hub's client asked for. */
export interface LogNote {
  readonly t: 'log';
  readonly id: string;
  readonly line: LogLine;
}

export type HubBound = Announcement | Farewell | ResourceUpdate | AnswerMessage | AskMessage | ProgressNote | LogNote;
export type EdgeBound = CallMessage | ContentCallMessage | CancelMessage;

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

/** A message an edge published on one of its site's channels, checked before the hub believes any of it. */
export function parseHubBound(text: string, site: string, kind: 'announce' | 'answers'): Parsed<HubBound> {
  const limit = kind === 'announce' ? MAX_ANNOUNCEMENT_BYTES : MAX_ANSWER_BYTES;
  // Bytes, not characters: a message of multi-byte characters is up to three times longer in bytes.
  const bytes = Buffer.byteLength(text);
  if (bytes > limit) return { ok: false, problem: `message of ${bytes} bytes is over the ${limit} bytes an edge may send` };
  const value = parseJsonOrUndefined(text);
  if (!isPlainObject(value)) return { ok: false, problem: 'not a JSON object' };
  if (kind === 'answers') {
    if (typeof value['id'] !== 'string') return { ok: false, problem: 'an answer needs t "answer" and an id' };
    if (value['t'] === 'progress' || value['t'] === 'log') return parseNote(value, value['id'], bytes);
    if (value['t'] === 'ask') return parseAsk(value, value['id']);
    if (value['t'] !== 'answer') return { ok: false, problem: 'an answer needs t "answer" and an id' };
    const error = typeof value['error'] === 'string' ? { error: value['error'].slice(0, MAX_ANSWER_ERROR_LENGTH) } : {};
    return { ok: true, value: { t: 'answer', id: value['id'], result: value['result'], ...error } };
  }
  // The site is the channel's: a message naming another site is a forgery (or a misconfigured edge).
  if (value['site'] !== site) return { ok: false, problem: `it names site ${JSON.stringify(String(value['site']).slice(0, 40))} on the channel of site ${site}` };
  if (typeof value['instance'] !== 'string' || value['instance'] === '') return { ok: false, problem: 'no instance' };
  if (value['t'] === 'bye') return { ok: true, value: { t: 'bye', site, instance: value['instance'] } };
  if (value['t'] === 'updated') {
    const uri = value['uri'];
    if (typeof uri !== 'string' || uri === '' || uri.length > MAX_UPDATED_URI_LENGTH) return { ok: false, problem: `a resource update needs a URI of at most ${MAX_UPDATED_URI_LENGTH} characters` };
    return { ok: true, value: { t: 'updated', site, instance: value['instance'], uri } };
  }
  if (value['t'] !== 'announce') return { ok: false, problem: `unknown message type ${JSON.stringify(String(value['t']).slice(0, 20))}` };
  const tools = value['tools'];
  if (!Array.isArray(tools) || tools.length > MAX_EDGE_TOOLS) return { ok: false, problem: `tools must be an array of at most ${MAX_EDGE_TOOLS}` };
  for (const [index, tool] of tools.entries()) {
    if (!isPlainObject(tool) || !isPlainObject(tool['listing']) || typeof tool['listing']['name'] !== 'string') return { ok: false, problem: `tools[${index}] has no listing with a name` };
    if (!isPositive(tool['timeoutMs']) || !isPositive(tool['maxDurationMs'])) return { ok: false, problem: `tools[${index}] needs timeoutMs and maxDurationMs` };
  }
  const resources = contentItems(value['resources'], 'resources', MAX_EDGE_RESOURCES, (listing) => typeof listing['uri'] === 'string' || typeof listing['uriTemplate'] === 'string');
  if (!resources.ok) return resources;
  const prompts = contentItems(value['prompts'], 'prompts', MAX_EDGE_PROMPTS, () => true);
  if (!prompts.ok) return prompts;
  return {
    ok: true,
    value: {
      t: 'announce',
      site,
      instance: value['instance'],
      tools: tools as unknown as EdgeTool[],
      ...(resources.value.length > 0 ? { resources: resources.value as EdgeResource[] } : {}),
      ...(prompts.value.length > 0 ? { prompts: prompts.value as EdgePrompt[] } : {}),
      ...(value['readsBatches'] === true ? { readsBatches: true as const } : {}),
    },
  };
}

/**
 * An announcement's resources or prompts, shaped: each a listing with a name, a time limit, and
 * completions as lists of strings. What they say is judged on the hub as a declared item is.
 */
function contentItems(value: unknown, field: string, max: number, addressed: (listing: Record<string, unknown>) => boolean): Parsed<ReadonlyArray<EdgeContentItem<unknown>>> {
  if (value === undefined) return { ok: true, value: [] };
  if (!Array.isArray(value) || value.length > max) return { ok: false, problem: `${field} must be an array of at most ${max}` };
  for (const [index, item] of value.entries()) {
    const listing = isPlainObject(item) ? item['listing'] : undefined;
    if (!isPlainObject(item) || !isPlainObject(listing) || typeof listing['name'] !== 'string' || !addressed(listing)) return { ok: false, problem: `${field}[${index}] has no listing with a name${field === 'resources' ? ' and a URI' : ''}` };
    if (!isPositive(item['timeoutMs'])) return { ok: false, problem: `${field}[${index}] needs timeoutMs` };
    const lists = item['completions'];
    const flow = item['flowCompletions'];
    const wellFormed =
      (lists === undefined || (isPlainObject(lists) && Object.values(lists).every(isStringList))) && (flow === undefined || isStringList(flow));
    if (!wellFormed) return { ok: false, problem: `${field}[${index}] has completions that are not lists of strings` };
  }
  return { ok: true, value: value as EdgeContentItem<unknown>[] };
}

/** At most what one completion list may hold in the editor's hands, each value a short string. */
function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.length <= 1_000 && value.every((entry) => typeof entry === 'string' && entry.length <= 1_024);
}

/** Questions for the client, checked as a local flow's `mcp-tool-input` is (the hub trusts no edge's check). */
function parseAsk(value: Record<string, unknown>, id: string): Parsed<AskMessage> {
  const parsed = parseInputPayload({ executionId: id, requests: value['requests'], ...(value['state'] !== undefined ? { state: value['state'] } : {}) });
  return parsed.ok ? { ok: true, value: { t: 'ask', id, ask: parsed.ask } } : { ok: false, problem: `its questions were refused: ${parsed.problem}` };
}

/** A progress report or log line, checked as the same message from a local flow is (flow-reports.ts). */
function parseNote(value: Record<string, unknown>, id: string, bytes: number): Parsed<ProgressNote | LogNote> {
  if (bytes > MAX_NOTE_BYTES) return { ok: false, problem: `a ${String(value['t'])} of ${bytes} bytes is over the ${MAX_NOTE_BYTES} bytes an edge may send` };
  const payload = { ...value, executionId: id };
  if (value['t'] === 'progress') {
    const report = parseProgressPayload(payload);
    return report.ok ? { ok: true, value: { t: 'progress', id, report: report.value } } : { ok: false, problem: `a progress report has a bad ${report.field}` };
  }
  const line = parseLogPayload(payload);
  return line.ok ? { ok: true, value: { t: 'log', id, line: line.value } } : { ok: false, problem: `a log line has a bad ${line.field}` };
}

/** A message a hub published on this edge's calls channel. */
export function parseEdgeBound(text: string): Parsed<EdgeBound> {
  const value = parseJsonOrUndefined(text);
  if (!isPlainObject(value) || typeof value['id'] !== 'string') return { ok: false, problem: 'not a call or cancel' };
  if (value['t'] === 'cancel') return { ok: true, value: { t: 'cancel', id: value['id'], reason: String(value['reason'] ?? 'cancelled') } };
  if (value['t'] === 'content') return parseContentCall(value, value['id']);
  if (value['t'] !== 'call' || typeof value['tool'] !== 'string' || !isPlainObject(value['arguments'])) return { ok: false, problem: 'a call needs a tool and arguments' };
  const caller = isPlainObject(value['caller']) ? (value['caller'] as RelayedCaller) : {};
  // Member by member, not spread from temporary objects: an edge reads one for every relayed call.
  const call = { t: 'call', id: value['id'] } as Mutable<CallMessage>;
  if (typeof value['instance'] === 'string') call.instance = value['instance'];
  call.tool = value['tool'];
  call.arguments = value['arguments'];
  call.caller = caller;
  call.hub = String(value['hub'] ?? '');
  call.protocolVersion = String(value['protocolVersion'] ?? '');
  if (value['progress'] === true) call.progress = true;
  if (isLogLevel(value['logLevel'])) call.logLevel = value['logLevel'];
  if (value['input'] !== undefined) Object.assign(call, roundOf(value['input']));
  if (isPlainObject(value['clientCapabilities'])) call.clientCapabilities = value['clientCapabilities'];
  if (value['readsBatches'] === true) call.readsBatches = true;
  return { ok: true, value: call };
}

/** A read, prompt or completion a hub sent. Only hubs publish on a site's calls channel: shaped, not judged. */
function parseContentCall(value: Record<string, unknown>, id: string): Parsed<ContentCallMessage> {
  const request = contentRequestOf(value['request']);
  if (!request) return { ok: false, problem: 'a content call needs a read, prompt or completion' };
  return {
    ok: true,
    value: {
      t: 'content',
      id,
      ...(typeof value['instance'] === 'string' ? { instance: value['instance'] } : {}),
      request,
      caller: isPlainObject(value['caller']) ? (value['caller'] as RelayedCaller) : {},
      hub: String(value['hub'] ?? ''),
      protocolVersion: String(value['protocolVersion'] ?? ''),
      ...roundOf(value['input']),
      ...(value['readsBatches'] === true ? { readsBatches: true as const } : {}),
    },
  };
}

function contentRequestOf(value: unknown): RelayedContentRequest | undefined {
  if (!isPlainObject(value)) return undefined;
  const strings = (record: unknown): record is Record<string, string> => isPlainObject(record) && Object.values(record).every((entry) => typeof entry === 'string');
  switch (value['kind']) {
    case 'resource-read':
      return typeof value['uri'] === 'string' ? { kind: 'resource-read', uri: value['uri'] } : undefined;
    case 'prompt-get':
      return typeof value['name'] === 'string' && strings(value['arguments']) ? { kind: 'prompt-get', name: value['name'], arguments: value['arguments'] } : undefined;
    case 'completion': {
      const { ref, argument } = value;
      if (!isPlainObject(ref) || !isPlainObject(argument) || typeof argument['name'] !== 'string' || typeof argument['value'] !== 'string') return undefined;
      const named: CompletionRef | undefined =
        ref['type'] === 'ref/prompt' && typeof ref['name'] === 'string' ? { type: 'ref/prompt', name: ref['name'] } : ref['type'] === 'ref/resource' && typeof ref['uri'] === 'string' ? { type: 'ref/resource', uri: ref['uri'] } : undefined;
      if (!named) return undefined;
      return { kind: 'completion', ref: named, argument: { name: argument['name'], value: argument['value'] }, ...(strings(value['arguments']) ? { arguments: value['arguments'] } : {}) };
    }
    default:
      return undefined;
  }
}

/**
 * The round a hub sends with a later round of a call that asked. Only hubs may publish on a site's
 * calls channel, so this is shaped, not judged: the hub checked the answers against the questions.
 */
function roundOf(value: unknown): { input?: RoundInput } {
  if (!isPlainObject(value)) return {};
  const round = value['round'];
  if (typeof round !== 'number' || !Number.isInteger(round) || round < 0 || round > MAX_INPUT_ROUNDS) return {};
  const { inputResponses, unaskedResponses, inputError, state } = value;
  const refusal = isPlainObject(inputError) && typeof inputError['code'] === 'number' && typeof inputError['message'] === 'string' && Array.isArray(inputError['keys']);
  return {
    input: {
      round,
      ...(isPlainObject(inputResponses) ? { inputResponses } : {}),
      ...(isPlainObject(unaskedResponses) ? { unaskedResponses } : {}),
      ...(refusal ? { inputError: { code: inputError['code'] as number, message: inputError['message'] as string, keys: (inputError['keys'] as unknown[]).map(String) } } : {}),
      ...(state !== undefined ? { state } : {}),
    },
  };
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
