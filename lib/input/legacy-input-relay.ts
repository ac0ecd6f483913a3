import { randomBytes } from 'node:crypto';
import { isPlainObject } from '../core/is-plain-object.js';
import type { Logger } from '../core/logger.js';
import type { Store, StoreKey } from '../storage/store.js';
import type { InputRequest } from './input-requests.js';
import { parseJsonOrUndefined } from '../core/parse-json.js';

/** How a round of questions on a 2025-era stream ended when it did not get every answer. */
export type UnansweredEnd = 'timeout' | 'cancelled' | 'stopped';

export type AskOutcome =
  | { readonly answers: Record<string, unknown> }
  | { readonly ended: UnansweredEnd }
  /** As many calls as the relay allows are waiting for their clients already: nothing was sent. */
  | { readonly full: number };

/** What a client POSTed back: a JSON-RPC response to one of the requests this palette sent. */
export interface ClientAnswer {
  readonly id: string;
  readonly result?: unknown;
  readonly error?: unknown;
}

export type AnswerDelivery = 'delivered' | 'forwarded' | 'unknown';

interface Waiting {
  /** Who made the call: only the same caller may answer its questions. */
  readonly owner: string;
  readonly deliver: (value: unknown) => void;
}

/** What travels between instances: the answer and who sent it (checked where the question waits). */
interface Forwarded {
  readonly owner: string;
  readonly answer: ClientAnswer;
}

/**
 * The 2025-era way a flow asks the client: each request goes out on the call's own response stream
 * (SSE) with an id minted here, and the client answers with a new POST — which a load balancer may
 * hand to another Node-RED. The id names the instance that asked, so whichever instance receives
 * the answer delivers it here directly or forwards it through the shared storage's publish/subscribe.
 * An answer is accepted only from the caller who made the call, once; anything else is dropped.
 */
export class LegacyInputRelay {
  /** Unguessable, so nobody can answer a question they were not asked, and unique per endpoint instance. */
  private readonly instance = randomBytes(9).toString('base64url');
  private readonly waiting = new Map<string, Waiting>();
  /** Rounds still waiting, each ended at once when the endpoint stops. */
  private readonly onStop = new Set<() => void>();
  private readonly store: Store | undefined;
  private readonly logger: Logger;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;
  /** Calls whose questions are out: a round that asked holds no concurrency slot, so this is their bound. */
  private asking = 0;
  private readonly maxAsking: number;

  constructor(options: { readonly store?: Store; readonly logger: Logger; readonly maxAsking?: number }) {
    this.store = options.store;
    this.logger = options.logger;
    this.maxAsking = options.maxAsking ?? Number.POSITIVE_INFINITY;
    if (this.store) this.unsubscribe = this.store.subscribe(channelOf(this.instance), (message) => this.receiveForwarded(message));
  }

  get pending(): number {
    return this.waiting.size;
  }

  /**
   * Sends every request with `send` and resolves once each has its answer (a result, or `{ error }`
   * when the client answered with an error), or when the time limit passes, `signal` aborts (the
   * client hung up) or the endpoint stops.
   */
  async ask(requests: Readonly<Record<string, InputRequest>>, owner: string, send: (message: object) => Promise<void>, signal: AbortSignal, timeoutMs: number): Promise<AskOutcome> {
    if (this.stopped) return { ended: 'stopped' };
    if (signal.aborted) return { ended: 'cancelled' };
    if (this.asking >= this.maxAsking) return { full: this.maxAsking };
    this.asking += 1;
    const ids: string[] = [];
    const answers: Record<string, unknown> = {};
    let remaining = Object.keys(requests).length;
    let finish!: (outcome: AskOutcome) => void;
    const done = new Promise<AskOutcome>((resolve) => (finish = resolve));
    for (const [key, request] of Object.entries(requests)) {
      const id = `${this.instance}.${randomBytes(9).toString('base64url')}`;
      ids.push(id);
      this.waiting.set(id, {
        owner,
        deliver: (value) => {
          answers[key] = value;
          if (--remaining === 0) finish({ answers });
        },
      });
      send({ jsonrpc: '2.0', id, method: request.method, params: request.params }).catch(() => finish({ ended: 'cancelled' }));
    }
    const timer = setTimeout(() => finish({ ended: 'timeout' }), timeoutMs);
    const onAbort = () => finish({ ended: this.stopped ? 'stopped' : 'cancelled' });
    signal.addEventListener('abort', onAbort, { once: true });
    const stopListener = () => finish({ ended: 'stopped' });
    this.onStop.add(stopListener);
    try {
      return await done;
    } finally {
      this.asking -= 1;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      this.onStop.delete(stopListener);
      for (const id of ids) this.waiting.delete(id);
    }
  }

  /**
   * A client's answer, from whichever instance received it. `owner` is the caller key of the POST
   * that carried it. 'unknown' covers late, repeated, foreign and made-up answers alike.
   */
  async answer(answer: ClientAnswer, owner: string): Promise<AnswerDelivery> {
    const dot = answer.id.indexOf('.');
    if (dot <= 0) return 'unknown';
    const instance = answer.id.slice(0, dot);
    if (instance === this.instance) return this.deliver(answer, owner) ? 'delivered' : 'unknown';
    if (!this.store) return 'unknown';
    const forwarded: Forwarded = { owner, answer };
    await this.store.publish(channelOf(instance), JSON.stringify(forwarded));
    return 'forwarded';
  }

  /** Ends every round still waiting (the endpoint stops) and stops listening for forwarded answers. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const listener of [...this.onStop]) listener();
  }

  private deliver(answer: ClientAnswer, owner: string): boolean {
    const waiting = this.waiting.get(answer.id);
    if (!waiting) return false;
    if (waiting.owner !== owner) {
      this.logger.warn('an answer to a question a flow asked was refused: it came from another caller than the one who made the call');
      return false;
    }
    this.waiting.delete(answer.id);
    waiting.deliver(answer.error !== undefined ? { error: errorOf(answer.error) } : answer.result);
    return true;
  }

  private receiveForwarded(message: string): void {
    const parsed = parseJsonOrUndefined(message);
    if (!isPlainObject(parsed) || typeof parsed['owner'] !== 'string') return;
    const answer = parsed['answer'];
    if (!isPlainObject(answer) || typeof answer['id'] !== 'string') return;
    this.deliver(answer as unknown as ClientAnswer, parsed['owner']);
  }
}

/**
 * The JSON-RPC responses in a POST body (one, or a batch of them), or undefined when the body holds
 * anything else. Only string ids can be ours.
 */
export function clientAnswersIn(body: unknown): ClientAnswer[] | undefined {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return undefined;
  const answers: ClientAnswer[] = [];
  for (const message of messages) {
    if (!isPlainObject(message) || 'method' in message || !('result' in message || 'error' in message)) return undefined;
    if (typeof message['id'] === 'string') answers.push(message as unknown as ClientAnswer);
  }
  return answers;
}

function errorOf(error: unknown): { code: number; message: string } {
  const code = isPlainObject(error) && typeof error['code'] === 'number' ? error['code'] : -32603;
  const message = isPlainObject(error) && typeof error['message'] === 'string' ? error['message'].slice(0, 500) : 'The client answered with an error.';
  return { code, message };
}

function channelOf(instance: string): StoreKey {
  return { namespace: 'mcp-input', kind: 'answers', id: instance };
}
