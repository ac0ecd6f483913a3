import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ExecutionBroker, type BeginOptions, type ExecutionRequest } from '../../lib/execution/broker.js';
import type { CancelReason } from '../../lib/execution/cancellation.js';

interface CallContext {
  readonly caller: string;
  readonly requestId: number;
}

/** A broker that records what reached "the flow" and every call it reported abandoned. */
function recordingBroker() {
  const dispatched: ExecutionRequest[] = [];
  const abandoned: Array<{ executionId: string; reason: CancelReason; context: CallContext }> = [];
  const broker = new ExecutionBroker<CallContext, { name: string }>({
    maxInFlight: 16,
    dispatch: (request) => {
      dispatched.push(request);
    },
    onAbandoned: (executionId, reason, context) => abandoned.push({ executionId, reason, context }),
  });
  return { broker, dispatched, abandoned };
}

function call(overrides: Partial<BeginOptions<CallContext, { name: string }>> = {}): BeginOptions<CallContext, { name: string }> {
  return { toolName: 'job', arguments: {}, timeoutMs: 1_000, context: { caller: 'ada', requestId: 1 }, ...overrides };
}

describe('ExecutionBroker: progress, time limits and cancellation', () => {
  it('passes progressToken (false by default) and logLevel on to the flow', async () => {
    const { broker, dispatched } = recordingBroker();
    const plain = broker.begin(call());
    const streamed = broker.begin(call({ progressToken: true, logLevel: 'info', stream: { name: 's' } }));
    assert.equal(dispatched[0]!.progressToken, false);
    assert.equal('logLevel' in dispatched[0]!, false);
    assert.equal(dispatched[1]!.progressToken, true);
    assert.equal(dispatched[1]!.logLevel, 'info');
    for (const request of dispatched) broker.settle(request.executionId, { result: 1 });
    await Promise.all([plain, streamed]);
  });

  it('accepts increasing progress with the call stream, refuses progress that does not increase, and knows no finished call', async () => {
    const { broker, dispatched } = recordingBroker();
    const stream = { name: 'the stream' };
    const outcome = broker.begin(call({ stream }));
    const id = dispatched[0]!.executionId;
    assert.deepEqual(broker.progress(id, 0), { status: 'accepted', stream });
    assert.deepEqual(broker.progress(id, 0.5), { status: 'accepted', stream });
    assert.deepEqual(broker.progress(id, 0.5), { status: 'not_increasing', last: 0.5 });
    assert.deepEqual(broker.progress(id, 0.2), { status: 'not_increasing', last: 0.5 });
    broker.settle(id, { result: 'done' });
    await outcome;
    assert.deepEqual(broker.progress(id, 1), { status: 'unknown' });
    assert.deepEqual(broker.progress('made-up', 1), { status: 'unknown' });
  });

  it('accepts progress for a call without a stream (it keeps the call alive; nobody is told)', async () => {
    const { broker, dispatched } = recordingBroker();
    const outcome = broker.begin(call());
    assert.deepEqual(broker.progress(dispatched[0]!.executionId, 1), { status: 'accepted', stream: undefined });
    broker.settle(dispatched[0]!.executionId, { result: 'done' });
    await outcome;
  });

  it('restarts the time limit on each progress, so a call much longer than its limit survives', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const { broker, dispatched, abandoned } = recordingBroker();
    const outcome = broker.begin(call({ timeoutMs: 100, maxTotalMs: 10_000 }));
    const id = dispatched[0]!.executionId;
    for (let step = 1; step <= 20; step += 1) {
      t.mock.timers.tick(90);
      assert.equal(broker.progress(id, step).status, 'accepted', `step ${step}`);
    }
    assert.equal(broker.inFlight, 1, 'alive after 1800 ms with a 100 ms limit');
    t.mock.timers.tick(99);
    assert.equal(broker.inFlight, 1);
    t.mock.timers.tick(1);
    assert.deepEqual(await outcome, { kind: 'timeout', timeoutMs: 100 });
    assert.deepEqual(abandoned.map((entry) => entry.reason), ['timeout']);
  });

  it('never extends a call past its maximum total duration', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const { broker, dispatched, abandoned } = recordingBroker();
    const outcome = broker.begin(call({ timeoutMs: 100, maxTotalMs: 250 }));
    const id = dispatched[0]!.executionId;
    t.mock.timers.tick(90);
    broker.progress(id, 1); // deadline 190
    t.mock.timers.tick(90);
    broker.progress(id, 2); // 70 ms of the total left: the deadline becomes 250
    t.mock.timers.tick(60);
    broker.progress(id, 3); // capped: no longer moves it
    assert.equal(broker.inFlight, 1);
    t.mock.timers.tick(9);
    assert.equal(broker.inFlight, 1, 'still pending at 249 ms');
    t.mock.timers.tick(1);
    assert.deepEqual(await outcome, { kind: 'timeout', timeoutMs: 250, total: true });
    assert.deepEqual(abandoned.map((entry) => entry.reason), ['timeout']);
  });

  it('treats a maximum total duration below the time limit as the time limit', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    const { broker, dispatched } = recordingBroker();
    const outcome = broker.begin(call({ timeoutMs: 100, maxTotalMs: 10 }));
    t.mock.timers.tick(50);
    broker.progress(dispatched[0]!.executionId, 1);
    t.mock.timers.tick(50);
    assert.deepEqual(await outcome, { kind: 'timeout', timeoutMs: 100 });
  });

  it('cancel ends a pending call once as cancelled by the client and reports it abandoned once', async () => {
    const { broker, dispatched, abandoned } = recordingBroker();
    const outcome = broker.begin(call());
    const id = dispatched[0]!.executionId;
    assert.equal(broker.cancel(id), true);
    assert.equal(broker.cancel(id), false);
    assert.equal(broker.settle(id, { result: 'late' }), 'unknown');
    assert.deepEqual(await outcome, { kind: 'cancelled', byClient: true });
    assert.deepEqual(abandoned, [{ executionId: id, reason: 'cancelled', context: { caller: 'ada', requestId: 1 } }]);
  });

  it('reports a hang-up as disconnected and a stop as stopped, and never an answered call', async () => {
    const { broker, dispatched, abandoned } = recordingBroker();
    const hangUp = new AbortController();
    const first = broker.begin(call({ signal: hangUp.signal }));
    const second = broker.begin(call());
    const answered = broker.begin(call());
    broker.settle(dispatched[2]!.executionId, { result: 'fine' });
    hangUp.abort();
    broker.stopAll('the endpoint was redeployed');
    await Promise.all([first, second, answered]);
    assert.deepEqual(
      abandoned.map(({ executionId, reason }) => [executionId, reason]),
      [
        [dispatched[0]!.executionId, 'disconnected'],
        [dispatched[1]!.executionId, 'stopped'],
      ],
    );
  });

  it('reports nothing for calls that never reached the flow', async () => {
    const { broker, abandoned } = recordingBroker();
    await broker.begin(call({ signal: AbortSignal.abort() }));
    broker.stopAll('closing');
    await broker.begin(call());
    assert.deepEqual(abandoned, []);
  });

  it('finds pending calls by their context and lets a view of one be read', async () => {
    const { broker, dispatched } = recordingBroker();
    const calls = [
      broker.begin(call({ context: { caller: 'ada', requestId: 1 } })),
      broker.begin(call({ context: { caller: 'bob', requestId: 1 }, stream: { name: 'bob' } })),
      broker.begin(call({ context: { caller: 'ada', requestId: 2 } })),
    ];
    assert.deepEqual(broker.findWhere((context) => context.requestId === 1 && context.caller === 'bob'), [dispatched[1]!.executionId]);
    assert.equal(broker.findWhere((context) => context.requestId === 1).length, 2);
    assert.deepEqual(broker.find(dispatched[1]!.executionId), { ...broker.find(dispatched[1]!.executionId), context: { caller: 'bob', requestId: 1 }, stream: { name: 'bob' } });
    assert.equal(broker.find('made-up'), undefined);
    broker.stopAll('done');
    await Promise.all(calls);
  });
});
