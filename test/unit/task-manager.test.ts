import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { TaskManager, type TaskEnding, type TaskLimits } from '../../lib/tasks/task-manager.js';
import { TaskStore } from '../../lib/tasks/task-store.js';
import type { TaskRecord } from '../../lib/tasks/task-record.js';

const LIMITS: TaskLimits = { maxTasks: 3, maxTasksPerCaller: 2, maxStoredTasks: 1000, maxStoredTasksPerCaller: 100, ttlMs: 60_000, pollIntervalMs: 1000, maxResultBytes: 1024 };
const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A run the test ends by hand: `end(taskId, ending)`. */
function controlledRuns() {
  const pending = new Map<string, (ending: TaskEnding) => void>();
  const started: string[] = [];
  return {
    started,
    run: (executionId: string, taskId: string) =>
      new Promise<TaskEnding>((resolve) => {
        started.push(executionId);
        pending.set(taskId, resolve);
      }),
    end(taskId: string, ending: TaskEnding) {
      pending.get(taskId)?.(ending);
    },
  };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail('condition not reached');
}

describe('TaskManager', () => {
  const stores: MemoryStore[] = [];
  const managers: TaskManager[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((manager) => manager.stop()));
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  function setup(options: { instance?: string; store?: MemoryStore; abandon?: (executionId: string) => void; limits?: Partial<TaskLimits> } = {}) {
    const store = options.store ?? new MemoryStore();
    if (!options.store) stores.push(store);
    const manager = new TaskManager({
      store: new TaskStore(store, 'tasks'),
      endpoint: '/mcp',
      limits: { ...LIMITS, ...options.limits },
      logger: silent,
      abandon: options.abandon ?? (() => {}),
      ...(options.instance ? { instance: options.instance } : {}),
    });
    managers.push(manager);
    return { store, manager };
  }

  async function started(manager: TaskManager, owner: string, run: (executionId: string, taskId: string) => Promise<TaskEnding>): Promise<TaskRecord> {
    const record = await manager.start({ owner, tool: 'job', run });
    assert.ok(!('refused' in record), 'the task starts');
    return record as TaskRecord;
  }

  it('stores the task before answering, then records how it ended', async () => {
    const { manager } = setup();
    const runs = controlledRuns();
    const record = await started(manager, 'alice', runs.run);
    assert.equal(record.status, 'working');
    assert.equal((await manager.get(record.taskId, 'alice'))?.status, 'working');
    runs.end(record.taskId, { status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } });
    await until(async () => (await manager.get(record.taskId, 'alice'))?.status === 'completed');
    assert.deepEqual((await manager.get(record.taskId, 'alice'))?.result, { content: [{ type: 'text', text: 'done' }] });
    assert.equal(manager.runningCount, 0);
  });

  it('hides a task from every caller but its owner', async () => {
    const { manager } = setup();
    const runs = controlledRuns();
    const record = await started(manager, 'alice', runs.run);
    assert.equal(await manager.get(record.taskId, 'mallory'), undefined);
    assert.equal(await manager.cancel(record.taskId, 'mallory'), 'unknown');
    assert.equal((await manager.get(record.taskId, 'alice'))?.status, 'working', 'a stranger cannot cancel it');
    assert.deepEqual(await manager.list('mallory'), []);
    assert.deepEqual((await manager.list('alice')).map((task) => task.taskId), [record.taskId]);
  });

  it('keeps the first terminal status: a late answer does not undo a cancel', async () => {
    const abandoned: string[] = [];
    const { manager } = setup({ abandon: (executionId) => abandoned.push(executionId) });
    const runs = controlledRuns();
    const record = await started(manager, 'alice', runs.run);
    assert.equal(await manager.cancel(record.taskId, 'alice'), 'acknowledged');
    assert.deepEqual(abandoned, [record.executionId], 'the flow is told to stop');
    runs.end(record.taskId, { status: 'completed', result: { content: [] } });
    await until(async () => manager.runningCount === 0);
    assert.equal((await manager.get(record.taskId, 'alice'))?.status, 'cancelled');
    assert.equal(await manager.cancel(record.taskId, 'alice'), 'acknowledged', 'cancelling again changes nothing');
  });

  it('refuses new tasks over the endpoint and per-caller limits, and takes them again once one ends', async () => {
    const { manager } = setup();
    const runs = controlledRuns();
    const first = await started(manager, 'alice', runs.run);
    await started(manager, 'alice', runs.run);
    assert.deepEqual(await manager.start({ owner: 'alice', tool: 'job', run: runs.run }), { refused: 'caller_full', limit: 2 });
    await started(manager, 'bob', runs.run);
    assert.deepEqual(await manager.start({ owner: 'carol', tool: 'job', run: runs.run }), { refused: 'endpoint_full', limit: 3 });
    runs.end(first.taskId, { status: 'failed', error: { code: -32001, message: 'timed out' } });
    await until(async () => manager.runningCount === 2);
    await started(manager, 'alice', runs.run);
  });

  it('refuses a task past the stored caps, per caller and per endpoint, counted across instances, until older tasks expire', async () => {
    let now = 1_700_000_000_000;
    const store = new MemoryStore({ now: () => now });
    stores.push(store);
    const limits = { maxStoredTasks: 3, maxStoredTasksPerCaller: 2 };
    const { manager: onA } = setup({ store, instance: 'instance-a', limits });
    const { manager: onB } = setup({ store, instance: 'instance-b', limits });
    const done = async (): Promise<TaskEnding> => ({ status: 'completed', result: { content: [] } });
    // Finished tasks count: their records are kept for the TTL.
    await started(onA, 'alice', done);
    await started(onB, 'alice', done);
    const runs = controlledRuns();
    assert.deepEqual(await onA.start({ owner: 'alice', tool: 'job', run: runs.run }), { refused: 'caller_stored_full', limit: 2 });
    assert.deepEqual(await onB.start({ owner: 'alice', tool: 'job', run: runs.run }), { refused: 'caller_stored_full', limit: 2 });
    await started(onB, 'bob', done);
    assert.deepEqual(await onA.start({ owner: 'carol', tool: 'job', run: runs.run }), { refused: 'endpoint_stored_full', limit: 3 });
    assert.deepEqual(runs.started, [], 'a refused task never reaches the flow');
    assert.equal(onA.runningCount + onB.runningCount, 0, 'nor holds a running slot');
    // Once the first tasks' records have expired, their places are free again, on either instance.
    now += LIMITS.ttlMs;
    await started(onB, 'carol', done);
    await started(onA, 'alice', done);
  });

  it('gives a caller its stored place back when the endpoint refused the task', async () => {
    let now = 1_700_000_000_000;
    const store = new MemoryStore({ now: () => now });
    stores.push(store);
    const { manager } = setup({ store, limits: { maxStoredTasks: 1, maxStoredTasksPerCaller: 1 } });
    const done = async (): Promise<TaskEnding> => ({ status: 'completed', result: { content: [] } });
    await started(manager, 'alice', done);
    now += LIMITS.ttlMs / 2;
    assert.deepEqual(await manager.start({ owner: 'bob', tool: 'job', run: done }), { refused: 'endpoint_stored_full', limit: 1 });
    // Alice's task has expired, the refused one of Bob would not have yet: Bob has his place.
    now += LIMITS.ttlMs / 2;
    await started(manager, 'bob', done);
  });

  it('gives the stored places back when the record cannot be stored', async () => {
    const store = new MemoryStore();
    stores.push(store);
    const { manager } = setup({ store, limits: { maxStoredTasks: 1, maxStoredTasksPerCaller: 1 } });
    const failing = Object.create(store) as MemoryStore;
    failing.put = (key, value, ttl) => (key.kind === 'task' ? Promise.reject(new Error('disk full')) : store.put(key, value, ttl));
    const { manager: broken } = setup({ store: failing, limits: { maxStoredTasks: 1, maxStoredTasksPerCaller: 1 } });
    const done = async (): Promise<TaskEnding> => ({ status: 'completed', result: { content: [] } });
    await assert.rejects(broken.start({ owner: 'alice', tool: 'job', run: done }), /disk full/);
    await started(manager, 'alice', done);
  });

  it('reports a task failed once the instance running it stops sending heartbeats', async () => {
    const store = new MemoryStore();
    stores.push(store);
    const { manager: onA } = setup({ store, instance: 'instance-a' });
    const { manager: onB } = setup({ store, instance: 'instance-b' });
    const runs = controlledRuns();
    const record = await started(onA, 'alice', runs.run);
    assert.equal((await onB.get(record.taskId, 'alice'))?.status, 'working', 'alive: working');
    // A crash: the heartbeat key disappears as if its TTL had passed.
    await store.delete({ namespace: 'tasks', kind: 'task-instance', id: 'instance-a' });
    const seen = await onB.get(record.taskId, 'alice');
    assert.equal(seen?.status, 'failed');
    assert.match(String(seen?.error?.message), /instance running this task stopped/);
  });

  it('passes a cancel sent to another instance on to the instance that runs the task', async () => {
    const store = new MemoryStore();
    stores.push(store);
    const abandoned: string[] = [];
    const { manager: onA } = setup({ store, instance: 'instance-a', abandon: (executionId) => abandoned.push(executionId) });
    const { manager: onB } = setup({ store, instance: 'instance-b' });
    const runs = controlledRuns();
    const record = await started(onA, 'alice', runs.run);
    assert.equal(await onB.cancel(record.taskId, 'alice'), 'acknowledged');
    assert.equal((await onA.get(record.taskId, 'alice'))?.status, 'cancelled');
    // A reads its inbox about once a second.
    await until(async () => abandoned.length === 1);
    assert.deepEqual(abandoned, [record.executionId]);
  });

  it('waits for the end of a task for tasks/result, and stops waiting when the client leaves', async () => {
    const { manager } = setup();
    const runs = controlledRuns();
    const record = await started(manager, 'alice', runs.run);
    const waiting = manager.waitForEnd(record.taskId, 'alice', new AbortController().signal);
    runs.end(record.taskId, { status: 'cancelled' });
    assert.equal((await waiting)?.status, 'cancelled');
    const other = await started(manager, 'alice', runs.run);
    const leave = new AbortController();
    const abandonedWait = manager.waitForEnd(other.taskId, 'alice', leave.signal);
    leave.abort();
    assert.equal((await abandonedWait)?.status, 'working');
  });

  it('fails a start whose record cannot be stored, before anything runs, and frees its slot', async () => {
    const store = new MemoryStore();
    const { manager } = setup({ store });
    await store.close();
    const runs = controlledRuns();
    await assert.rejects(manager.start({ owner: 'alice', tool: 'job', run: runs.run }), /storage unavailable/);
    assert.deepEqual(runs.started, []);
    assert.equal(manager.runningCount, 0);
  });

  const CITY = { method: 'elicitation/create', params: { message: 'Which city?', requestedSchema: { type: 'object', properties: {} } } } as const;

  it('hands the answers over once every question has one, and turns the task working again', async () => {
    const { manager } = setup();
    const runs = controlledRuns();
    const record = await started(manager, 'alice', runs.run);
    await manager.ask(record.taskId, { city: CITY, street: CITY });
    await manager.answer(record.taskId, 'alice', { city: { action: 'decline' } });
    assert.deepEqual(await manager.awaitAnswers(record.taskId, 1), { ended: 'timeout' }, 'one question is still open');
    await manager.answer(record.taskId, 'alice', { street: { action: 'cancel' } });
    assert.deepEqual(await manager.awaitAnswers(record.taskId, 1000), { answers: { city: { action: 'decline' }, street: { action: 'cancel' } } });
    const resumed = await manager.get(record.taskId, 'alice');
    assert.equal(resumed?.status, 'working');
    assert.equal(resumed?.inputRequests, undefined);
  });

  it('takes no answers from another caller: tasks/update of a task that is not theirs is an unknown task', async () => {
    const { manager } = setup();
    const runs = controlledRuns();
    const record = await started(manager, 'alice', runs.run);
    await manager.ask(record.taskId, { city: CITY });
    assert.equal(await manager.answer(record.taskId, 'mallory', { city: { action: 'accept', content: { city: 'Nowhere' } } }), 'unknown');
    const still = await manager.get(record.taskId, 'alice');
    assert.equal(still?.status, 'input_required');
    assert.deepEqual(still?.inputResponses, {});
    assert.deepEqual(await manager.awaitAnswers(record.taskId, 1), { ended: 'timeout' }, 'nothing was handed to the flow');
  });

  it('does not resume a task whose cancel lands between reading its answers and taking them', async () => {
    const store = new MemoryStore();
    stores.push(store);
    let cancelFirst = false;
    // Another instance's tasks/cancel, written just before this instance's next write.
    class CancelledMeanwhile extends TaskStore {
      override async transition(taskId: string, change: (record: TaskRecord) => TaskRecord | undefined): Promise<TaskRecord | undefined> {
        if (cancelFirst) {
          cancelFirst = false;
          await super.transition(taskId, (current) => ({ ...current, status: 'cancelled' }));
        }
        return super.transition(taskId, change);
      }
    }
    const manager = new TaskManager({ store: new CancelledMeanwhile(store, 'tasks'), endpoint: '/mcp', limits: LIMITS, logger: silent, abandon: () => {} });
    managers.push(manager);
    const runs = controlledRuns();
    const record = await started(manager, 'alice', runs.run);
    await manager.ask(record.taskId, { city: CITY });
    await manager.answer(record.taskId, 'alice', { city: { action: 'decline' } });
    cancelFirst = true;
    assert.deepEqual(await manager.awaitAnswers(record.taskId, 1000), { ended: 'cancelled' }, 'the flow gets no new round');
    assert.equal((await manager.get(record.taskId, 'alice'))?.status, 'cancelled');
  });
});
