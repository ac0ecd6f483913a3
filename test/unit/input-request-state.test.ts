import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { argumentsDigest, canonicalJson } from '../../lib/input/arguments-digest.js';
import { RequestStateSealer, type RoundState, type StateBinding } from '../../lib/input/request-state.js';
import { REQUEST_STATE_KEY_ENV, requestStateSealer } from '../../lib/input/state-key.js';

const TTL_MS = 15 * 60_000;
const NOW = 1_700_000_000_000;
const BINDING: StateBinding = { endpoint: '/tools', target: 'tool:book', caller: 'alice', arguments: argumentsDigest({ room: 'A', nights: 2 }) };
const ROUND: RoundState = {
  round: 2,
  state: { step: 'dates', picked: ['a', 'b'] },
  requests: { when: { method: 'elicitation/create', params: { message: 'When?', requestedSchema: { type: 'object', properties: { date: { type: 'string', format: 'date' } } } } } },
};

function sealer(): RequestStateSealer {
  return new RequestStateSealer('a test key that is long enough to be a key', TTL_MS);
}

/** Flips one bit of the sealed bytes at `index`, keeping the text clean base64url. */
function flipped(text: string, index: number): string {
  const bytes = Buffer.from(text.slice(3), 'base64url');
  bytes[index] = bytes[index]! ^ 0x01;
  return `v1.${bytes.toString('base64url')}`;
}

describe('RequestStateSealer', () => {
  it('opens what it sealed, with round, state and requests as they were', () => {
    const text = sealer().seal(ROUND, BINDING, NOW);
    assert.match(text, /^v1\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(sealer().open(text, BINDING, NOW + 1), { ok: true, value: ROUND, expiresAt: NOW + TTL_MS });
  });

  it('carries the answers a partial retry already gave', () => {
    const value: RoundState = { ...ROUND, answers: { city: { action: 'accept', content: { city: 'Oslo' } } } };
    assert.deepEqual(sealer().open(sealer().seal(value, BINDING, NOW), BINDING, NOW), { ok: true, value, expiresAt: NOW + TTL_MS });
  });

  it('leaves state out when the flow gave none', () => {
    const text = sealer().seal({ round: 1, requests: ROUND.requests }, BINDING, NOW);
    const opened = sealer().open(text, BINDING, NOW);
    assert.ok(opened.ok);
    assert.equal('state' in opened.value, false);
  });

  it('does not show the flow state in the sealed text', () => {
    const text = sealer().seal({ ...ROUND, state: 'secret-marker-42' }, BINDING, NOW);
    assert.doesNotMatch(Buffer.from(text.slice(3), 'base64url').toString('latin1'), /secret-marker-42/);
  });

  it('refuses a changed text as forged, whichever part was changed', () => {
    const text = sealer().seal(ROUND, BINDING, NOW);
    const length = Buffer.from(text.slice(3), 'base64url').length;
    for (const index of [0, 12, Math.floor(length / 2), length - 1]) {
      assert.deepEqual(sealer().open(flipped(text, index), BINDING, NOW), { ok: false, reason: 'forged' }, `byte ${index}`);
    }
  });

  it('refuses a state bound to another endpoint, tool or caller as forged', () => {
    const text = sealer().seal(ROUND, BINDING, NOW);
    for (const other of [
      { ...BINDING, endpoint: '/other' },
      { ...BINDING, target: 'tool:cancel' },
      { ...BINDING, target: 'prompt:book' },
      { ...BINDING, caller: 'mallory' },
    ]) {
      assert.deepEqual(sealer().open(text, other, NOW), { ok: false, reason: 'forged' }, JSON.stringify(other));
    }
  });

  it('refuses a genuine state on a call with other arguments, told apart from a forgery', () => {
    const text = sealer().seal(ROUND, BINDING, NOW);
    for (const args of [{ room: 'B', nights: 2 }, { room: 'A' }, {}, { room: 'A', nights: 2, extra: true }]) {
      assert.deepEqual(sealer().open(text, { ...BINDING, arguments: argumentsDigest(args) }, NOW), { ok: false, reason: 'other_arguments' }, JSON.stringify(args));
    }
    // The same arguments in another member order are the same call.
    assert.equal(sealer().open(text, { ...BINDING, arguments: argumentsDigest({ nights: 2, room: 'A' }) }, NOW).ok, true);
  });

  it('refuses a state sealed with another key as forged', () => {
    const text = new RequestStateSealer('another key that is also long enough!!', TTL_MS).seal(ROUND, BINDING, NOW);
    assert.deepEqual(sealer().open(text, BINDING, NOW), { ok: false, reason: 'forged' });
    assert.deepEqual(RequestStateSealer.ephemeral(TTL_MS).open(sealer().seal(ROUND, BINDING, NOW), BINDING, NOW), { ok: false, reason: 'forged' });
  });

  it('opens until just before the time to live passes and refuses it as expired from then on', () => {
    const text = sealer().seal(ROUND, BINDING, NOW);
    assert.equal(sealer().open(text, BINDING, NOW + TTL_MS - 1).ok, true);
    assert.deepEqual(sealer().open(text, BINDING, NOW + TTL_MS), { ok: false, reason: 'expired' });
    assert.deepEqual(sealer().open(text, BINDING, NOW + 24 * 3_600_000), { ok: false, reason: 'expired' });
  });

  it('refuses malformed texts without trying to open them', () => {
    const text = sealer().seal(ROUND, BINDING, NOW);
    for (const bad of ['', 'v1.', 'v2.' + text.slice(3), text.slice(3), 'v1.abc', `v1.${text.slice(3)}!`, `v1.${text.slice(3, 20)} ${text.slice(20)}`, 'v1.' + 'A'.repeat(20)]) {
      assert.deepEqual(sealer().open(bad, BINDING, NOW), { ok: false, reason: 'malformed' }, JSON.stringify(bad));
    }
  });
});

describe('argumentsDigest', () => {
  it('ignores member order at every depth and nothing else', () => {
    assert.equal(canonicalJson({ b: [2, { y: 1, x: null }], a: 'é' }), '{"a":"é","b":[2,{"x":null,"y":1}]}');
    assert.equal(argumentsDigest({ a: { c: 1, b: 2 } }), argumentsDigest({ a: { b: 2, c: 1 } }));
    assert.notEqual(argumentsDigest({ a: [1, 2] }), argumentsDigest({ a: [2, 1] }));
    assert.notEqual(argumentsDigest({ a: '1' }), argumentsDigest({ a: 1 }));
    assert.notEqual(argumentsDigest({ x: 1 }), argumentsDigest({ x: 999 }));
    assert.match(argumentsDigest({}), /^[A-Za-z0-9_-]{43}$/);
  });
});

describe('requestStateSealer', () => {
  it('shares one sealer for one key, so instances with the same key open each other\'s states', () => {
    const key = 'k'.repeat(40);
    const env = { [REQUEST_STATE_KEY_ENV]: key };
    const text = requestStateSealer(env).seal(ROUND, BINDING);
    assert.equal(new RequestStateSealer(key, TTL_MS).open(text, BINDING).ok, true);
  });

  it('uses one random key of the process without the variable', () => {
    const a = requestStateSealer({});
    assert.equal(requestStateSealer({ [REQUEST_STATE_KEY_ENV]: '  ' }), a);
    assert.equal(a.open(a.seal(ROUND, BINDING), BINDING).ok, true);
  });

  it('refuses a key shorter than 32 characters, naming the variable', () => {
    assert.throws(() => requestStateSealer({ [REQUEST_STATE_KEY_ENV]: 'short' }), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'invalid_state_key');
      assert.match(error.message, /MCP_REQUEST_STATE_KEY/);
      return true;
    });
  });
});
