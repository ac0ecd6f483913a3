import { randomBytes } from 'node:crypto';
import { isPlainObject } from '../core/is-plain-object.js';
import type { Logger } from '../core/logger.js';
import type { Store, StoreKey } from '../storage/store.js';
import type { InputRequest } from './input-requests.js';
import { parseJsonOrUndefined } from '../core/parse-json.js';
import { answerProblem } from './answer-checks.js';
import type { HangUpSignal } from '../core/hang-up.js';

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

export type AnswerDelivery = 'delivered' | 'forwarded' | 'unknown' | 'invalid';

/** What became of the answers of one POST. */
export type AnswersOutcome =
  /** Some answer does not fit its question: nothing of the POST was delivered. */
  | { readonly invalid: ReadonlyArray<{ readonly id: string; readonly problem: string }> }
  | { readonly delivered: number; readonly forwarded: number; readonly unknown: number };

/** The most answers one POST may carry, as the SDK's transports cap any JSON-RPC batch. */
export const MAX_ANSWERS_PER_POST = 100;

interface Waiting {
  /** Who made the call: only the same caller may answer its questions. */
  readonly owner: string;
  /** What was asked, to check the answer against. */
  readonly request: InputRequest;
  readonly deliver: (value: unknown) => void;
}

/**
 * One round's questions as the other instances see them in the shared storage: who may answer and
 * what each answer is checked against (a form's schema), so an answer that reaches another instance
 * is checked, and refused to its client, there.
 */
interface StoredRound {
  readonly owner: string;
  readonly questions: readonly InputRequest[];
}

/** What travels between instances: the answers for one instance and who sent them (checked again where the questions wait). */
interface Forwarded {
  readonly owner: string;
  readonly answers: readonly ClientAnswer[];
}

/** An answer of a POST, placed: the question it answers and the instance where that question waits. */
type Placed = { readonly answer: ClientAnswer; readonly instance: string; readonly request: InputRequest } | undefined;

/**
 * The 2025-era way a flow asks the client: each request goes out on the call's own response stream
 * (SSE) with an id minted here, and the client answers with a new POST — which a load balancer may
 * hand to another Node-RED. The id names the instance that asked and the round, so whichever
 * instance receives the answer checks it against the question (kept in the shared storage for the
 * round's lifetime) and delivers it here directly, or forwards it through the storage's
 * publish/subscribe: the answers of one POST for one instance in one message. An answer is accepted
 * only from the caller who made the call, once, and only when it fits what was asked.
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
  async ask(requests: Readonly<Record<string, InputRequest>>, owner: string, send: (message: object) => Promise<void>, signal: HangUpSignal, timeoutMs: number): Promise<AskOutcome> {
    if (this.stopped) return { ended: 'stopped' };
    if (signal.aborted) return { ended: 'cancelled' };
    if (this.asking >= this.maxAsking) return { full: this.maxAsking };
    this.asking += 1;
    const round = randomBytes(12).toString('base64url');
    const entries = Object.entries(requests);
    const ids: string[] = [];
    const answers: Record<string, unknown> = {};
    let remaining = entries.length;
    let ended = false;
    let finish!: (outcome: AskOutcome) => void;
    const done = new Promise<AskOutcome>((resolve) => {
      finish = (outcome) => {
        ended = true;
        resolve(outcome);
      };
    });
    const timer = setTimeout(() => finish({ ended: 'timeout' }), timeoutMs);
    const onAbort = () => finish({ ended: this.stopped ? 'stopped' : 'cancelled' });
    signal.addEventListener('abort', onAbort, { once: true });
    const stopListener = () => finish({ ended: 'stopped' });
    this.onStop.add(stopListener);
    try {
      // Before the questions go out: an answer may reach another instance as soon as they do.
      await this.publishRound(round, owner, entries, timeoutMs);
      // The call may have ended while the storage answered: then nothing is asked.
      if (!ended) entries.forEach(([key, request], index) => {
        const id = `${this.instance}.${round}.${index}`;
        ids.push(id);
        this.waiting.set(id, {
          owner,
          request,
          deliver: (value) => {
            answers[key] = value;
            if (--remaining === 0) finish({ answers });
          },
        });
        send({ jsonrpc: '2.0', id, method: request.method, params: request.params }).catch(() => finish({ ended: 'cancelled' }));
      });
      return await done;
    } finally {
      this.asking -= 1;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      this.onStop.delete(stopListener);
      for (const id of ids) this.waiting.delete(id);
      if (this.store) this.store.delete(roundKey(round)).catch(() => undefined);
    }
  }

  /** One answer, as `answerAll` takes a POST's: 'invalid' when it does not fit its question. */
  async answer(answer: ClientAnswer, owner: string): Promise<AnswerDelivery> {
    const outcome = await this.answerAll([answer], owner);
    if ('invalid' in outcome) return 'invalid';
    return outcome.delivered > 0 ? 'delivered' : outcome.forwarded > 0 ? 'forwarded' : 'unknown';
  }

  /**
   * A POST's answers, from whichever instance received them; `owner` is the caller key of the POST.
   * Every answer is checked against its question first: when one does not fit, none is delivered
   * and the client is told which (its good answers are still awaited). Otherwise the answers for
   * this instance are delivered and those for each other instance travel together in one publish.
   * `unknown` counts late, repeated, foreign and made-up answers alike.
   */
  async answerAll(answers: readonly ClientAnswer[], owner: string): Promise<AnswersOutcome> {
    const placed = await this.place(answers, owner);
    const invalid: Array<{ id: string; problem: string }> = [];
    for (const found of placed) {
      if (!found || found.answer.error !== undefined) continue;
      const problem = answerProblem(found.request, found.answer.result);
      if (problem) invalid.push({ id: found.answer.id, problem });
    }
    if (invalid.length > 0) return { invalid };
    let delivered = 0;
    let unknown = placed.filter((found) => !found).length;
    const elsewhere = new Map<string, ClientAnswer[]>();
    for (const found of placed) {
      if (!found) continue;
      if (found.instance !== this.instance) elsewhere.set(found.instance, [...(elsewhere.get(found.instance) ?? []), found.answer]);
      else if (this.deliver(found.answer, owner)) delivered++;
      else unknown++;
    }
    let forwarded = 0;
    for (const [instance, batch] of elsewhere) {
      const message: Forwarded = { owner, answers: batch };
      const sent = await this.store!.publish(channelOf(instance), JSON.stringify(message)).then(
        () => true,
        () => false,
      );
      if (sent) forwarded += batch.length;
      else unknown += batch.length;
    }
    return { delivered, forwarded, unknown };
  }

  /** Ends every round still waiting (the endpoint stops) and stops listening for forwarded answers. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    for (const listener of [...this.onStop]) listener();
  }

  /** Keeps a round's questions where the other instances sharing the storage can check answers against them. */
  private async publishRound(round: string, owner: string, entries: ReadonlyArray<[string, InputRequest]>, timeoutMs: number): Promise<void> {
    if (!this.store) return;
    const stored: StoredRound = { owner, questions: entries.map(([, request]) => checkedPart(request)) };
    try {
      await this.store.put(roundKey(round), JSON.stringify(stored), Math.max(1, Math.ceil(timeoutMs / 1000)));
    } catch (error) {
      // Asked anyway: the answer can still come here; one that reaches another instance is refused there.
      this.logger.debug(`the questions of a call could not be shared with the other instances: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Finds the question each answer answers: here, or in the round another instance shared. */
  private async place(answers: readonly ClientAnswer[], owner: string): Promise<Placed[]> {
    const rounds = new Map<string, Promise<StoredRound | undefined>>();
    const located = answers.map((answer) => ({ answer, id: parseId(answer.id) }));
    for (const { id } of located) {
      if (!id || id.instance === this.instance || !this.store || rounds.has(id.round)) continue;
      rounds.set(id.round, this.storedRound(id.round));
    }
    const placed: Placed[] = [];
    for (const { answer, id } of located) {
      if (!id) {
        placed.push(undefined);
        continue;
      }
      if (id.instance === this.instance) {
        const waiting = this.waiting.get(answer.id);
        placed.push(waiting && this.ownedBy(waiting.owner, owner) ? { answer, instance: id.instance, request: waiting.request } : undefined);
        continue;
      }
      const round = await rounds.get(id.round);
      const request = round?.questions[id.index];
      placed.push(round && request && this.ownedBy(round.owner, owner) ? { answer, instance: id.instance, request } : undefined);
    }
    return placed;
  }

  private async storedRound(round: string): Promise<StoredRound | undefined> {
    const text = await this.store!.get(roundKey(round)).catch(() => undefined);
    const parsed = text === undefined ? undefined : parseJsonOrUndefined(text);
    if (!isPlainObject(parsed) || typeof parsed['owner'] !== 'string' || !Array.isArray(parsed['questions'])) return undefined;
    return parsed as unknown as StoredRound;
  }

  private ownedBy(asker: string, answerer: string): boolean {
    if (asker === answerer) return true;
    this.logger.warn('an answer to a question a flow asked was refused: it came from another caller than the one who made the call');
    return false;
  }

  /** Hands one answer to the round waiting for it here, checked again: forwarded answers crossed the storage. */
  private deliver(answer: ClientAnswer, owner: string): boolean {
    const waiting = this.waiting.get(answer.id);
    if (!waiting || !this.ownedBy(waiting.owner, owner)) return false;
    if (answer.error === undefined && answerProblem(waiting.request, answer.result) !== undefined) {
      this.logger.debug('a forwarded answer to a question a flow asked was dropped: it does not fit the question');
      return false;
    }
    this.waiting.delete(answer.id);
    waiting.deliver(answer.error !== undefined ? { error: errorOf(answer.error) } : answer.result);
    return true;
  }

  private receiveForwarded(message: string): void {
    const parsed = parseJsonOrUndefined(message);
    if (!isPlainObject(parsed) || typeof parsed['owner'] !== 'string') return;
    // One answer per message is how an instance of an earlier version forwards.
    const answers = Array.isArray(parsed['answers']) ? parsed['answers'] : [parsed['answer']];
    for (const answer of answers) {
      if (isPlainObject(answer) && typeof answer['id'] === 'string') this.deliver(answer as unknown as ClientAnswer, parsed['owner']);
    }
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

function roundKey(round: string): StoreKey {
  return { namespace: 'mcp-input', kind: 'questions', id: round };
}

/** `<instance>.<round>.<index>`: the only ids this palette mints. */
function parseId(id: string): { instance: string; round: string; index: number } | undefined {
  const parts = id.split('.');
  if (parts.length !== 3 || parts[0] === '' || parts[1] === '' || !/^\d{1,2}$/.test(parts[2]!)) return undefined;
  return { instance: parts[0]!, round: parts[1]!, index: Number(parts[2]) };
}

/** What of a request another instance needs to check its answer: the method, and a form's schema. */
function checkedPart(request: InputRequest): InputRequest {
  return request.method === 'elicitation/create' ? { method: request.method, params: { requestedSchema: request.params['requestedSchema'] } } : { method: request.method, params: {} };
}
