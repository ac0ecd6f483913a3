import { randomBytes, randomUUID } from 'node:crypto';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { isTerminal, pendingRequests, type TaskError, type TaskRecord, type TaskStatus } from './task-record.js';
import type { InputRequest } from '../input/input-requests.js';
import { isPlainObject } from '../core/is-plain-object.js';
import type { TaskStore } from './task-store.js';
import { TASK_DEFAULTS } from './task-defaults.js';
import type { CallToolResult } from '@modelcontextprotocol/server';

/** The limits of one endpoint's tasks (editor fields of mcp-flow-server). */
export interface TaskLimits {
  /** Tasks this endpoint runs at once on this Node-RED instance. */
  readonly maxTasks: number;
  /** Tasks one caller runs at once on this instance (on Local access all callers are one). */
  readonly maxTasksPerCaller: number;
  /**
   * Tasks the storage keeps for this endpoint at most, running or finished (a record lives for
   * `ttlMs`), counted across every instance that shares the storage; and for one caller of it.
   */
  readonly maxStoredTasks: number;
  readonly maxStoredTasksPerCaller: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** Largest result JSON a task keeps; larger ones are shortened with a note, as call results are. */
  readonly maxResultBytes: number;
}

/** How the execution of one task ended, as its record will say. */
export type TaskEnding =
  | { readonly status: 'completed'; readonly result: CallToolResult }
  | { readonly status: 'failed'; readonly error: TaskError }
  | { readonly status: 'cancelled'; readonly statusMessage?: string };

export interface StartTask {
  readonly owner: string;
  readonly tool: string;
  /**
   * Runs the tool under `executionId` once the record is stored, and tells how it ended. Must not
   * throw: failures are endings.
   */
  readonly run: (executionId: string, taskId: string) => Promise<TaskEnding>;
}

export type StartRefusal = { readonly refused: 'endpoint_full' | 'caller_full' | 'endpoint_stored_full' | 'caller_stored_full'; readonly limit: number };

export type CancelAnswer = 'acknowledged' | 'unknown';

/** How a task's wait for the client's answers ended. */
export type AnswersOutcome = { readonly answers: Record<string, unknown> } | { readonly ended: 'cancelled' | 'timeout' | 'gone' };

export interface TaskManagerOptions {
  readonly store: TaskStore;
  readonly endpoint: string;
  readonly limits: TaskLimits;
  readonly logger: Logger;
  /** Stops the flow's work on a call of this instance (its broker's cancel: mcp-tool-cancel). */
  readonly abandon: (executionId: string) => void;
  /** This process's identity in the shared storage; a new one per start, so a restart is a new instance. */
  readonly instance?: string;
}

interface RunningTask {
  readonly executionId: string;
  readonly owner: string;
}

/**
 * The tasks of one endpoint on this instance: starts them (record first, so any instance can answer
 * for them at once), writes how each ended, cancels them wherever they run, and reports a task whose
 * instance died as failed instead of leaving it "working" forever.
 *
 * Instances find each other through the storage alone: each running instance refreshes a heartbeat
 * key, and a cancel for a task running elsewhere bumps that instance's inbox counter, which it reads
 * once a second while it runs tasks (one GET; its records are read only when the counter moved).
 */
export class TaskManager {
  readonly instance: string;
  private readonly running = new Map<string, RunningTask>();
  private readonly perCaller = new Map<string, number>();
  private readonly writes = new Set<Promise<unknown>>();
  private ticker: NodeJS.Timeout | undefined;
  private ticks = 0;
  /**
   * The first heartbeat since tasks started running here, shared by the starts that wait for it: a
   * task's record is written only once its instance is known alive (other instances would otherwise
   * report it failed), and a burst of starts writes it once. Forgotten when it fails or tasks stop.
   */
  private firstHeartbeat: Promise<void> | undefined;
  private lastInbox = '0';
  private checking = false;

  constructor(private readonly options: TaskManagerOptions) {
    this.instance = options.instance ?? randomBytes(8).toString('hex');
  }

  get limits(): TaskLimits {
    return this.options.limits;
  }

  get runningCount(): number {
    return this.running.size;
  }

  /**
   * Creates the task and starts its work. Resolves with the stored record (status `working`) once a
   * `tasks/get` for it would succeed; rejects with StorageUnavailableError when the storage cannot
   * keep it, before anything reached the flow.
   */
  async start(task: StartTask): Promise<TaskRecord | StartRefusal> {
    const { limits } = this.options;
    if (this.running.size >= limits.maxTasks) return { refused: 'endpoint_full', limit: limits.maxTasks };
    if ((this.perCaller.get(task.owner) ?? 0) >= limits.maxTasksPerCaller) return { refused: 'caller_full', limit: limits.maxTasksPerCaller };
    const now = Date.now();
    const record: TaskRecord = {
      taskId: randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: limits.ttlMs,
      pollIntervalMs: limits.pollIntervalMs,
      owner: task.owner,
      endpoint: this.options.endpoint,
      tool: task.tool,
      instance: this.instance,
      executionId: randomBytes(16).toString('hex'),
    };
    // Counted before the first await, so concurrent starts cannot overshoot the limits.
    this.track(record);
    const { store } = this.options;
    const ttlSeconds = Math.ceil(limits.ttlMs / 1000);
    let admitted = false;
    try {
      // Stored tasks are counted in the storage, across instances: a full count refuses the task before anything is written.
      const admission = await store.admit(record.taskId, record.owner, record.endpoint, ttlSeconds, { perCaller: limits.maxStoredTasksPerCaller, perEndpoint: limits.maxStoredTasks });
      if (admission !== 'admitted') {
        this.untrack(record.taskId);
        return { refused: admission, limit: admission === 'caller_stored_full' ? limits.maxStoredTasksPerCaller : limits.maxStoredTasks };
      }
      admitted = true;
      await (this.firstHeartbeat ??= store.heartbeat(this.instance, TASK_DEFAULTS.heartbeatTtlSeconds).catch((error: unknown) => {
        this.firstHeartbeat = undefined;
        throw error;
      }));
      await store.create(record);
    } catch (error) {
      this.untrack(record.taskId);
      if (admitted) await store.unadmit(record.taskId, record.owner, record.endpoint).catch(() => undefined);
      throw error;
    }
    // The index for tasks/list is a convenience: a storage hiccup there must not fail the task.
    this.remember(store.remember(record.owner, record.taskId, TASK_DEFAULTS.listedPerCaller, ttlSeconds));
    void task.run(record.executionId, record.taskId).then((ending) => this.finish(record.taskId, ending));
    return record;
  }

  /** The task as its owner may see it; a task of another caller does not exist for this one. */
  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const record = await this.options.store.read(taskId);
    if (!record || record.owner !== owner || record.endpoint !== this.options.endpoint) return undefined;
    if (isTerminal(record.status) || record.instance === this.instance) return record;
    if (await this.options.store.isAlive(record.instance)) return record;
    return (await this.options.store.transition(taskId, (current) => ended(current, { status: 'failed', error: INSTANCE_LOST }))) ?? record;
  }

  /**
   * Marks the task cancelled and stops its flow wherever it runs. A terminal task keeps its status
   * (cancelling it again is acknowledged and changes nothing).
   */
  async cancel(taskId: string, owner: string): Promise<CancelAnswer> {
    const record = await this.get(taskId, owner);
    if (!record) return 'unknown';
    if (isTerminal(record.status)) return 'acknowledged';
    const after = await this.options.store.transition(taskId, (current) => ended(current, { status: 'cancelled', statusMessage: 'Cancelled by the client.' }));
    if (after?.status !== 'cancelled') return 'acknowledged';
    if (record.instance === this.instance) this.stopLocally(taskId);
    else await this.options.store.nudge(record.instance, Math.ceil(this.options.limits.ttlMs / 1000));
    return 'acknowledged';
  }

  /**
   * The task's flow asks the client (2026-07-28): the record turns `input_required` with the
   * questions, which `tasks/get` shows until `tasks/update` has answered each of them.
   */
  async ask(taskId: string, requests: Readonly<Record<string, InputRequest>>): Promise<void> {
    await this.options.store.transition(taskId, (current) => ({ ...current, status: 'input_required', inputRequests: requests, inputResponses: {}, lastUpdatedAt: Date.now() }));
  }

  /**
   * A client's `tasks/update`: answers to questions the task is waiting for are kept; answers to
   * anything else (unknown keys, a task that is not waiting) are acknowledged and ignored, as the
   * tasks extension says. 'unknown' when the caller has no such task.
   */
  async answer(taskId: string, owner: string, responses: Record<string, unknown>): Promise<'acknowledged' | 'unknown'> {
    const record = await this.get(taskId, owner);
    if (!record) return 'unknown';
    if (record.status !== 'input_required') return 'acknowledged';
    await this.options.store.transition(taskId, (current) => {
      if (current.status !== 'input_required' || !current.inputRequests) return undefined;
      const kept: Record<string, unknown> = { ...current.inputResponses };
      let changed = false;
      for (const [key, value] of Object.entries(responses)) {
        if (!(key in current.inputRequests) || kept[key] !== undefined || !isPlainObject(value)) continue;
        kept[key] = value;
        changed = true;
      }
      return changed ? { ...current, inputResponses: kept, lastUpdatedAt: Date.now() } : undefined;
    });
    return 'acknowledged';
  }

  /**
   * Waits, on the instance that runs the task, until every question has its answer (from whichever
   * instance took the `tasks/update`), then turns the task `working` again and resolves with them.
   * Ends early when the task is cancelled or its record is gone, and at `timeoutMs`.
   */
  async awaitAnswers(taskId: string, timeoutMs: number): Promise<AnswersOutcome> {
    const deadline = Date.now() + timeoutMs;
    const never = new AbortController().signal;
    for (;;) {
      const record = await this.options.store.read(taskId).catch(() => undefined);
      if (!record) return { ended: 'gone' };
      if (isTerminal(record.status)) return { ended: 'cancelled' };
      if (record.status === 'input_required' && Object.keys(pendingRequests(record)).length === 0) {
        const answers = { ...record.inputResponses };
        const resumed = await this.options.store.transition(taskId, (current) => {
          if (current.status !== 'input_required') return undefined;
          const { inputRequests: _asked, inputResponses: _answered, ...rest } = current;
          return { ...rest, status: 'working', lastUpdatedAt: Date.now() };
        });
        // A cancel written between the read and this write wins: its flow must not get another round.
        if (!resumed) return { ended: 'gone' };
        if (resumed.status !== 'working') return { ended: 'cancelled' };
        return { answers };
      }
      if (Date.now() >= deadline) return { ended: 'timeout' };
      await sleep(Math.min(TASK_DEFAULTS.answerPollMs, Math.max(1, deadline - Date.now())), never);
    }
  }

  /** The owner's tasks that still exist, newest first (2025-11-25 `tasks/list`). */
  async list(owner: string): Promise<TaskRecord[]> {
    const ids = await this.options.store.ownedBy(owner);
    const records = await Promise.all(ids.map((id) => this.get(id, owner).catch(() => undefined)));
    return records.filter((record): record is TaskRecord => record !== undefined);
  }

  /** Waits until the task is terminal (2025-11-25 `tasks/result`), polling the storage. */
  async waitForEnd(taskId: string, owner: string, signal: AbortSignal): Promise<TaskRecord | undefined> {
    for (;;) {
      const record = await this.get(taskId, owner);
      if (!record || isTerminal(record.status) || signal.aborted) return record;
      await sleep(Math.min(record.pollIntervalMs, TASK_DEFAULTS.resultPollMs), signal);
    }
  }

  /** Lets the writes of tasks that just ended reach the storage, then stops the background checks. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.writes]);
    this.stopTicker();
  }

  private async finish(taskId: string, ending: TaskEnding): Promise<void> {
    const write = this.options.store
      .transition(taskId, (current) => ended(current, ending))
      .catch((error: unknown) => {
        // The record keeps "working" until an instance sees this one gone; nothing else can be done.
        this.options.logger.warn(`task ${taskId} on ${this.options.endpoint} ended (${ending.status}) but could not be recorded: ${describeError(error)}`);
      })
      .finally(() => this.untrack(taskId));
    this.remember(write);
    await write;
  }

  private stopLocally(taskId: string): void {
    const running = this.running.get(taskId);
    if (running) this.options.abandon(running.executionId);
  }

  private track(record: TaskRecord): void {
    this.running.set(record.taskId, { executionId: record.executionId, owner: record.owner });
    this.perCaller.set(record.owner, (this.perCaller.get(record.owner) ?? 0) + 1);
    this.ticker ??= setInterval(() => void this.tick(), TASK_DEFAULTS.checkIntervalMs).unref();
  }

  private untrack(taskId: string): void {
    const running = this.running.get(taskId);
    if (!running) return;
    this.running.delete(taskId);
    const count = (this.perCaller.get(running.owner) ?? 1) - 1;
    if (count > 0) this.perCaller.set(running.owner, count);
    else this.perCaller.delete(running.owner);
    if (this.running.size === 0) this.stopTicker();
  }

  private stopTicker(): void {
    this.firstHeartbeat = undefined;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  /** Once a second while tasks run: the heartbeat now and then, and cancels sent from elsewhere. */
  private async tick(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      this.ticks += 1;
      if (this.ticks % TASK_DEFAULTS.heartbeatEveryTicks === 0) await this.options.store.heartbeat(this.instance, TASK_DEFAULTS.heartbeatTtlSeconds);
      const inbox = await this.options.store.inbox(this.instance);
      if (inbox === this.lastInbox) return;
      this.lastInbox = inbox;
      for (const [taskId] of this.running) {
        const record = await this.options.store.read(taskId);
        if (record?.status === 'cancelled') this.stopLocally(taskId);
      }
    } catch (error) {
      // An outage only delays remote cancels; the next tick tries again.
      this.options.logger.debug(`task checks on ${this.options.endpoint} skipped: ${describeError(error)}`);
    } finally {
      this.checking = false;
    }
  }

  private remember(promise: Promise<unknown>): void {
    const settled = promise.catch(() => undefined);
    this.writes.add(settled);
    void settled.finally(() => this.writes.delete(settled));
  }
}

const INSTANCE_LOST: TaskError = {
  code: -32603,
  message: 'The Node-RED instance running this task stopped before the task finished.',
};

function ended(current: TaskRecord, ending: TaskEnding): TaskRecord {
  const status: TaskStatus = ending.status;
  const base = { ...current, status, lastUpdatedAt: Date.now() };
  switch (ending.status) {
    case 'completed':
      return { ...base, result: ending.result };
    case 'failed':
      return { ...base, error: ending.error, statusMessage: ending.error.message };
    case 'cancelled':
      return ending.statusMessage !== undefined ? { ...base, statusMessage: ending.statusMessage } : base;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
