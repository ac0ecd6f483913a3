import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CapacityError, ExecutionBroker, type BeginOptions, type ExecutionRequest } from '../../lib/execution/broker.js';

interface CallContext {
  readonly caller: string;
}

const CONTEXT: CallContext = { caller: 'unit-test' };

/** A broker whose dispatch only records what reached "the flow". */
function recordingBroker(maxInFlight = 8) {
  const dispatched: Array<{ request: ExecutionRequest; context: CallContext }> = [];
  const broker = new ExecutionBroker<CallContext>({
    maxInFlight,
    dispatch: (request, context) => {
      dispatched.push({ request, context });
    },
  });
  return { broker, dispatched };
}

function call(overrides: Partial<BeginOptions<CallContext>> = {}): BeginOptions<CallContext> {
  return { toolName: 'weather', arguments: { city: 'Oslo' }, timeoutMs: 5_000, context: CONTEXT, ...overrides };
}

describe('ExecutionBroker', () => {
  it('dispatches once with a fresh executionId, the tool name, the arguments and the context', async () => {
    const { broker, dispatched } = recordingBroker();
    const outcome = broker.begin(call());
    assert.equal(dispatched.length, 1);
    const [{ request, context }] = dispatched as [(typeof dispatched)[number]];
    assert.equal(typeof request.executionId, 'string');
    assert.ok(request.executionId.length > 0);
    assert.equal(request.toolName, 'weather');
    assert.deepEqual(request.arguments, { city: 'Oslo' });
    assert.equal(context, CONTEXT);
    assert.equal(broker.inFlight, 1);
    broker.settle(request.executionId, { result: 'done' });
    await outcome;
  });

  it('resolves answered with the result when the flow settles, and settle reports settled', async () => {
    const { broker, dispatched } = recordingBroker();
    const outcome = broker.begin(call());
    assert.equal(broker.settle(dispatched[0]!.request.executionId, { result: { temp: 21 } }), 'settled');
    assert.deepEqual(await outcome, { kind: 'answered', result: { temp: 21 } });
    assert.equal(broker.inFlight, 0);
  });

  it('resolves answered with the error when the flow settles with an error', async () => {
    const { broker, dispatched } = recordingBroker();
    const outcome = broker.begin(call());
    assert.equal(broker.settle(dispatched[0]!.request.executionId, { error: 'boom' }), 'settled');
    assert.deepEqual(await outcome, { kind: 'answered', error: 'boom' });
  });

  it('reports a duplicate answer for the same executionId as unknown and keeps the first answer', async () => {
    const { broker, dispatched } = recordingBroker();
    const outcome = broker.begin(call());
    const id = dispatched[0]!.request.executionId;
    assert.equal(broker.settle(id, { result: 'first' }), 'settled');
    assert.equal(broker.settle(id, { result: 'second' }), 'unknown');
    assert.deepEqual(await outcome, { kind: 'answered', result: 'first' });
  });

  it('reports an answer for an id it never issued as unknown', () => {
    const { broker } = recordingBroker();
    assert.equal(broker.settle('made-up-id', { result: 1 }), 'unknown');
    assert.equal(broker.inFlight, 0);
  });

  it('resolves timeout with timeoutMs when the flow does not answer in time', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { broker, dispatched } = recordingBroker();
    const outcome = broker.begin(call({ timeoutMs: 20 }));
    t.mock.timers.tick(19);
    assert.equal(broker.inFlight, 1, 'still pending just before the limit');
    t.mock.timers.tick(1);
    assert.deepEqual(await outcome, { kind: 'timeout', timeoutMs: 20 });
    assert.equal(broker.inFlight, 0);
    assert.equal(broker.settle(dispatched[0]!.request.executionId, { result: 'late' }), 'unknown');
  });

  it('times out with a small real timer too', async () => {
    const { broker } = recordingBroker();
    assert.deepEqual(await broker.begin(call({ timeoutMs: 20 })), { kind: 'timeout', timeoutMs: 20 });
    assert.equal(broker.inFlight, 0);
  });

  it('does not fire the timer of a call that was already answered', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { broker, dispatched } = recordingBroker();
    const first = broker.begin(call({ timeoutMs: 20 }));
    broker.settle(dispatched[0]!.request.executionId, { result: 'ok' });
    t.mock.timers.tick(50);
    assert.deepEqual(await first, { kind: 'answered', result: 'ok' });
    assert.equal(broker.inFlight, 0);
  });

  it('throws CapacityError synchronously at maxInFlight without dispatching, and frees a slot on settle', async () => {
    const { broker, dispatched } = recordingBroker(2);
    const first = broker.begin(call());
    const second = broker.begin(call());
    assert.throws(
      () => broker.begin(call()),
      (error: unknown) => error instanceof CapacityError && error.limit === 2 && /limit 2/.test(error.message),
    );
    assert.equal(dispatched.length, 2, 'the refused call never reached the flow');
    assert.equal(broker.inFlight, 2);

    broker.settle(dispatched[0]!.request.executionId, { result: 1 });
    await first;
    const third = broker.begin(call());
    assert.equal(dispatched.length, 3);
    assert.equal(broker.stopAll('test over'), 2);
    await Promise.all([second, third]);
  });

  it('stopAll resolves every pending call as stopped with the reason and returns the count', async () => {
    const { broker } = recordingBroker();
    const pending = [broker.begin(call()), broker.begin(call()), broker.begin(call())];
    assert.equal(broker.stopAll('endpoint redeployed'), 3);
    assert.equal(broker.inFlight, 0);
    for (const outcome of await Promise.all(pending)) {
      assert.deepEqual(outcome, { kind: 'stopped', reason: 'endpoint redeployed' });
    }
  });

  it('stopAll with nothing pending returns 0, and answers after a stop are unknown', async () => {
    const { broker, dispatched } = recordingBroker();
    const outcome = broker.begin(call());
    assert.equal(broker.stopAll('closing'), 1);
    assert.equal(broker.settle(dispatched[0]!.request.executionId, { result: 'late' }), 'unknown');
    assert.deepEqual(await outcome, { kind: 'stopped', reason: 'closing' });
    assert.equal(recordingBroker().broker.stopAll('idle'), 0);
  });

  it('after stopAll, a new call ends as stopped without reaching the flow', async () => {
    const { broker, dispatched } = recordingBroker();
    broker.stopAll('the endpoint was redeployed');
    assert.deepEqual(await broker.begin(call()), { kind: 'stopped', reason: 'the endpoint was redeployed' });
    assert.equal(dispatched.length, 0);
    assert.equal(broker.inFlight, 0);
  });

  it('resolves cancelled when the signal aborts, frees the slot and drops a late answer', async () => {
    const { broker, dispatched } = recordingBroker(1);
    const controller = new AbortController();
    const outcome = broker.begin(call({ signal: controller.signal }));
    controller.abort();
    assert.deepEqual(await outcome, { kind: 'cancelled' });
    assert.equal(broker.inFlight, 0);
    assert.equal(broker.settle(dispatched[0]!.request.executionId, { result: 'late' }), 'unknown');

    const next = broker.begin(call());
    assert.equal(broker.inFlight, 1, 'the freed slot is usable at maxInFlight 1');
    broker.settle(dispatched[1]!.request.executionId, { result: 'ok' });
    assert.deepEqual(await next, { kind: 'answered', result: 'ok' });
  });

  it('resolves cancelled without dispatching when the signal is already aborted', async () => {
    const { broker, dispatched } = recordingBroker();
    assert.deepEqual(await broker.begin(call({ signal: AbortSignal.abort() })), { kind: 'cancelled' });
    assert.equal(dispatched.length, 0);
    assert.equal(broker.inFlight, 0);
  });

  it('keeps the answer when the signal aborts after the call was settled', async () => {
    const { broker, dispatched } = recordingBroker();
    const controller = new AbortController();
    const outcome = broker.begin(call({ signal: controller.signal }));
    broker.settle(dispatched[0]!.request.executionId, { result: 'ok' });
    controller.abort();
    assert.deepEqual(await outcome, { kind: 'answered', result: 'ok' });
    assert.equal(broker.inFlight, 0);
  });

  it('ends the call as answered with the error when dispatch throws', async () => {
    const failure = new Error('node is closing');
    const broker = new ExecutionBroker<CallContext>({
      maxInFlight: 4,
      dispatch: () => {
        throw failure;
      },
    });
    const outcome = await broker.begin(call());
    assert.equal(outcome.kind, 'answered');
    assert.equal(outcome.kind === 'answered' ? outcome.error : undefined, failure);
    assert.equal(broker.inFlight, 0);
  });

  it('gives 1000 concurrent calls distinct ids and correlates every answer without leaking', async () => {
    const { broker, dispatched } = recordingBroker(1000);
    const pending = Array.from({ length: 1000 }, (_, index) => broker.begin(call({ arguments: { index } })));
    assert.equal(broker.inFlight, 1000);
    assert.throws(() => broker.begin(call()), CapacityError);

    const ids = new Set(dispatched.map(({ request }) => request.executionId));
    assert.equal(ids.size, 1000);

    // Answer in reverse order so a correlation mistake would show as a wrong result.
    for (const { request } of [...dispatched].reverse()) {
      assert.equal(broker.settle(request.executionId, { result: request.arguments.index }), 'settled');
    }
    const outcomes = await Promise.all(pending);
    outcomes.forEach((outcome, index) => assert.deepEqual(outcome, { kind: 'answered', result: index }));
    assert.equal(broker.inFlight, 0);
  });
});
