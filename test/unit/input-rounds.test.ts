import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ExecutionOutcome, RoundInput } from '../../lib/execution/broker.js';
import type { InputAsk, InputKind } from '../../lib/input/input-requests.js';
import { continueRounds, type AskDecision, type RoundsOptions } from '../../lib/input/input-rounds.js';

const ELICIT = { method: 'elicitation/create', params: { message: 'Which city?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } } } } } as const;
const SAMPLE = { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Hi' } }], maxTokens: 10 } } as const;
const ROOTS = { method: 'roots/list', params: {} } as const;

function asked(ask: InputAsk): Extract<ExecutionOutcome, { kind: 'input' }> {
  return { kind: 'input', ask, executionId: 'asking-round' };
}

/**
 * Options whose "flow" plays `flowAnswers` in turn (one per new round) and whose delivery plays
 * `decisions`; both record what they were given.
 */
function scripted(overrides: Partial<RoundsOptions>, flowAnswers: ExecutionOutcome[], decisions: Array<(ask: InputAsk, round: number) => AskDecision> = []) {
  const begun: RoundInput[] = [];
  const delivered: Array<{ ask: InputAsk; round: number }> = [];
  const options: RoundsOptions = {
    begin: async (input) => {
      begun.push(input);
      const next = flowAnswers.shift();
      assert.ok(next, 'the flow ran more rounds than the test expected');
      return next;
    },
    deliver: async (ask, round) => {
      delivered.push({ ask, round });
      const decide = decisions.shift();
      assert.ok(decide, 'more asks were delivered than the test expected');
      return decide(ask, round);
    },
    declared: new Set<InputKind>(['elicitation', 'sampling', 'roots']),
    maxRounds: 8,
    what: 'Tool "book"',
    ...overrides,
  };
  return { options, begun, delivered };
}

const ANSWERED: ExecutionOutcome = { kind: 'answered', result: 'done' };

describe('continueRounds', () => {
  it('tells the flow, in a new round with its state, that it asked for a kind the tool does not declare, and delivers nothing', async () => {
    const { options, begun, delivered } = scripted({ declared: new Set<InputKind>(['elicitation']) }, [ANSWERED]);
    const end = await continueRounds(options, asked({ requests: { city: ELICIT, summary: SAMPLE, folders: ROOTS }, state: { step: 1 } }), undefined);
    assert.deepEqual(end, ANSWERED);
    assert.equal(delivered.length, 0);
    assert.equal(begun.length, 1);
    const [input] = begun as [RoundInput];
    assert.equal(input.round, 1);
    assert.deepEqual(input.state, { step: 1 });
    assert.equal(input.inputError?.code, -32603);
    assert.deepEqual(input.inputError?.keys, ['summary', 'folders']);
    assert.match(input.inputError!.message, /^Tool "book" does not declare that it asks for sampling and roots/);
    assert.equal(input.inputResponses, undefined);
  });

  it('refuses a kind the client did not declare with -32021, naming only the keys it cannot take', async () => {
    const { options, begun, delivered } = scripted({ clientCan: (kind) => kind === 'elicitation' }, [ANSWERED]);
    await continueRounds(options, asked({ requests: { city: ELICIT, summary: SAMPLE } }), undefined);
    assert.equal(delivered.length, 0);
    const [input] = begun as [RoundInput];
    assert.deepEqual(input.inputError?.code, -32021);
    assert.deepEqual(input.inputError?.keys, ['summary']);
    assert.match(input.inputError!.message, /did not declare the sampling capability/);
    assert.equal('state' in input, false);
  });

  it('checks the declaration before the client: an undeclared kind is not a missing capability', async () => {
    const { options, begun } = scripted({ declared: new Set<InputKind>(['roots']), clientCan: () => false }, [ANSWERED]);
    await continueRounds(options, asked({ requests: { city: ELICIT } }), undefined);
    assert.equal(begun[0]!.inputError?.code, -32603);
  });

  it('refuses every ask of a call that cannot ask at all, with the reason it was given', async () => {
    const { options, begun, delivered } = scripted({ cannotAsk: 'no stream here' }, [ANSWERED]);
    await continueRounds(options, asked({ requests: { city: ELICIT, folders: ROOTS } }), undefined);
    assert.equal(delivered.length, 0);
    assert.deepEqual(begun[0]!.inputError, { code: -32603, message: 'no stream here', keys: ['city', 'folders'] });
  });

  it('delivers an ask every check lets through and runs the next round with what delivery returned', async () => {
    const next: RoundInput = { round: 1, inputResponses: { city: { action: 'accept', content: { city: 'Oslo' } } }, state: 's' };
    const { options, begun, delivered } = scripted({}, [ANSWERED], [() => ({ next })]);
    const ask = { requests: { city: ELICIT }, state: 's' };
    const end = await continueRounds(options, asked(ask), undefined);
    assert.deepEqual(end, ANSWERED);
    assert.deepEqual(delivered, [{ ask, round: 1 }]);
    assert.deepEqual(begun, [next]);
  });

  it('counts rounds on from the round the call resumed at, across several asks', async () => {
    const { options, delivered } = scripted(
      {},
      [asked({ requests: { again: ELICIT } }), ANSWERED],
      [(_ask, round) => ({ next: { round, inputResponses: {} } }), (_ask, round) => ({ next: { round, inputResponses: {} } })],
    );
    await continueRounds(options, asked({ requests: { city: ELICIT } }), { round: 3, inputResponses: {} });
    assert.deepEqual(
      delivered.map(({ round }) => round),
      [4, 5],
    );
  });

  it('hands the ask over with its round when delivery says so (2026-07-28), without running the flow again', async () => {
    const { options, begun } = scripted({}, [], [(ask) => ({ handOver: ask })]);
    const ask = { requests: { city: ELICIT, folders: ROOTS }, state: [1] };
    assert.deepEqual(await continueRounds(options, asked(ask), { round: 2 }), { kind: 'handOver', ask, round: 3 });
    assert.equal(begun.length, 0);
  });

  it('ends the call as delivery ended it (timeout, hang-up, stop)', async () => {
    for (const ended of [{ kind: 'timeout', timeoutMs: 2_000 }, { kind: 'cancelled' }, { kind: 'stopped', reason: 'x' }] as ExecutionOutcome[]) {
      const { options, begun } = scripted({}, [], [() => ({ ended })]);
      assert.deepEqual(await continueRounds(options, asked({ requests: { city: ELICIT } }), undefined), ended);
      assert.equal(begun.length, 0);
    }
  });

  it('ends the call with an error when the flow asks past the round limit, without running it again', async () => {
    const { options, begun, delivered } = scripted({ maxRounds: 8 }, []);
    const ended = await continueRounds(options, asked({ requests: { city: ELICIT }, state: 'kept' }), { round: 8 });
    assert.equal(delivered.length, 0);
    assert.equal(begun.length, 0);
    assert.equal(ended.kind, 'answered');
    assert.match(String((ended as { error?: unknown }).error), /asked the client more than 8 times in one call; it must answer with mcp-tool-response/);
  });

  it('lets the eighth round through and ends the call at the ninth ask', async () => {
    const rounds = Array.from({ length: 8 }, () => (_ask: InputAsk, round: number): AskDecision => ({ next: { round, inputResponses: {} } }));
    const flow: ExecutionOutcome[] = Array.from({ length: 8 }, () => asked({ requests: { city: ELICIT } }));
    const { options, begun, delivered } = scripted({ maxRounds: 8 }, flow, rounds);
    const ended = await continueRounds(options, asked({ requests: { city: ELICIT } }), undefined);
    assert.equal(delivered.length, 8);
    assert.equal(begun.length, 8);
    assert.equal(ended.kind, 'answered');
  });

  it('counts refused asks as rounds, so a flow that keeps asking what it may not ends too', async () => {
    const flow: ExecutionOutcome[] = Array.from({ length: 8 }, () => asked({ requests: { sample: SAMPLE } }));
    const { options, begun, delivered } = scripted({ maxRounds: 8, declared: new Set<InputKind>(['elicitation']) }, flow);
    const ended = await continueRounds(options, asked({ requests: { sample: SAMPLE } }), undefined);
    assert.equal(delivered.length, 0);
    assert.equal(begun.length, 8);
    assert.ok(begun.every((input) => input.inputError !== undefined));
    assert.equal(ended.kind, 'answered');
  });
});
