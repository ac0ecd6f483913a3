import { sha256 } from '../auth/secrets.js';
import type { Store, StoreKey } from '../storage/store.js';
import { decodeRecord, encodeRecord, isTerminal, secondsLeft, type TaskRecord } from './task-record.js';

/** Storage kinds of the task layer, in the endpoint's own namespace. */
const KIND = Object.freeze({
  task: 'task',
  instance: 'task-instance',
  inbox: 'task-inbox',
  owner: 'task-owner',
  storedByCaller: 'task-stored-caller',
  storedByEndpoint: 'task-stored-endpoint',
});

/** How many stored tasks one caller, and one endpoint, may have at most. */
export interface StoredTaskCaps {
  readonly perCaller: number;
  readonly perEndpoint: number;
}

export type StoredTaskAdmission = 'admitted' | 'caller_stored_full' | 'endpoint_stored_full';

/** How often a compare-and-set is retried when another instance changed the record in between. */
const MAX_CAS_ATTEMPTS = 8;

/**
 * Task records in the shared storage (Memory or Redis). Every change is a compare-and-set on the
 * record's JSON, so two instances finishing and cancelling the same task at once cannot both win:
 * the first terminal status stays. Every operation rejects with StorageUnavailableError while the
 * storage is unreachable, which the callers turn into a retryable error for the client.
 */
export class TaskStore {
  constructor(
    private readonly store: Store,
    private readonly namespace: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves once the record is stored, so a `tasks/get` for it on any instance succeeds. */
  async create(record: TaskRecord): Promise<void> {
    await this.store.put(this.key(KIND.task, record.taskId), encodeRecord(record), secondsLeft(record, this.now()));
  }

  async read(taskId: string): Promise<TaskRecord | undefined> {
    return decodeRecord(await this.store.get(this.key(KIND.task, taskId)));
  }

  /**
   * Applies `change` to the current record unless it is terminal already. Returns the record as it
   * is afterwards (changed or not), or undefined when there is none (expired or never existed).
   */
  async transition(taskId: string, change: (record: TaskRecord) => TaskRecord | undefined): Promise<TaskRecord | undefined> {
    const key = this.key(KIND.task, taskId);
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt += 1) {
      const text = await this.store.get(key);
      const current = decodeRecord(text);
      if (!current || text === undefined) return undefined;
      if (isTerminal(current.status)) return current;
      const next = change(current);
      if (!next) return current;
      if (await this.store.compareAndSet(key, text, encodeRecord(next), secondsLeft(next, this.now()))) return next;
    }
    throw new Error(`task ${taskId} kept changing under ${MAX_CAS_ATTEMPTS} attempts to update it`);
  }

  /** The instance is alive for `ttlSeconds` more: records it runs are not failed as orphans. */
  async heartbeat(instance: string, ttlSeconds: number): Promise<void> {
    await this.store.put(this.key(KIND.instance, instance), '1', ttlSeconds);
  }

  async isAlive(instance: string): Promise<boolean> {
    return (await this.store.get(this.key(KIND.instance, instance))) !== undefined;
  }

  /** Tells `instance` that one of its tasks was cancelled elsewhere: its next check reads its records. */
  async nudge(instance: string, ttlSeconds: number): Promise<void> {
    await this.store.increment(this.key(KIND.inbox, instance), ttlSeconds);
  }

  /** The instance's nudge counter (absent: 0); a change since the last look means "check your tasks". */
  async inbox(instance: string): Promise<string> {
    return (await this.store.get(this.key(KIND.inbox, instance))) ?? '0';
  }

  /**
   * The caller's most recent task ids, newest first, for `tasks/list` (2025-11-25): the storage has
   * no scans, so each caller keeps a short index of its own, trimmed to `keep` entries.
   */
  async remember(owner: string, taskId: string, keep: number, ttlSeconds: number): Promise<void> {
    const key = this.key(KIND.owner, ownerId(owner));
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt += 1) {
      const text = await this.store.get(key);
      const next = JSON.stringify([taskId, ...parseIds(text).filter((id) => id !== taskId)].slice(0, keep));
      if (text === undefined ? await this.store.putIfAbsent(key, next, ttlSeconds) : await this.store.compareAndSet(key, text, next, ttlSeconds)) return;
    }
  }

  async ownedBy(owner: string): Promise<string[]> {
    return parseIds(await this.store.get(this.key(KIND.owner, ownerId(owner))));
  }

  /**
   * Takes a place for a new task among the tasks stored for its caller and for its endpoint, each a
   * set of task ids in the storage whose members expire with the records (`ttlSeconds`), so the
   * counts are shared by every instance and shrink by themselves as finished tasks expire. The
   * caller's place is given back when the endpoint has none left.
   */
  async admit(taskId: string, owner: string, endpoint: string, ttlSeconds: number, caps: StoredTaskCaps): Promise<StoredTaskAdmission> {
    const byCaller = this.key(KIND.storedByCaller, ownerId(`${endpoint}\u0000${owner}`));
    if (!(await this.store.addToBoundedSet(byCaller, taskId, ttlSeconds, caps.perCaller))) return 'caller_stored_full';
    try {
      if (await this.store.addToBoundedSet(this.key(KIND.storedByEndpoint, endpoint), taskId, ttlSeconds, caps.perEndpoint)) return 'admitted';
    } catch (error) {
      await this.store.removeFromSet(byCaller, taskId).catch(() => undefined);
      throw error;
    }
    await this.store.removeFromSet(byCaller, taskId);
    return 'endpoint_stored_full';
  }

  /** Gives back the places `admit` took, for a task whose record could not be stored. */
  async unadmit(taskId: string, owner: string, endpoint: string): Promise<void> {
    await Promise.all([
      this.store.removeFromSet(this.key(KIND.storedByCaller, ownerId(`${endpoint}\u0000${owner}`)), taskId),
      this.store.removeFromSet(this.key(KIND.storedByEndpoint, endpoint), taskId),
    ]);
  }

  private key(kind: string, id: string): StoreKey {
    return { namespace: this.namespace, kind, id };
  }
}

/** Owners are callerKeys (a subject and a client, or '' on Local access): hashed into a key-safe id. */
function ownerId(owner: string): string {
  return sha256(owner);
}

function parseIds(text: string | undefined): string[] {
  if (text === undefined) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}
