import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { constantTimeEqual, newOpaqueToken, sessionLabel, sha256 } from '../../lib/auth/secrets.js';

const BASE64URL = /^[A-Za-z0-9_-]+$/;

describe('newOpaqueToken', () => {
  it('is 43 base64url characters: 256 random bits without padding', () => {
    const token = newOpaqueToken();
    assert.equal(token.length, 43);
    assert.match(token, BASE64URL);
    assert.equal(Buffer.from(token, 'base64url').length, 32);
  });

  it('never repeats over 1000 draws, and every draw has the same form', () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const token = newOpaqueToken();
      assert.equal(token.length, 43);
      assert.match(token, BASE64URL);
      tokens.add(token);
    }
    assert.equal(tokens.size, 1000);
  });
});

describe('sha256', () => {
  it('is deterministic base64url of the SHA-256 digest', () => {
    assert.equal(sha256('abc'), sha256('abc'));
    assert.equal(sha256('abc'), createHash('sha256').update('abc').digest('base64url'));
    // FIPS 180-2 test vector for "abc", in base64url.
    assert.equal(sha256('abc'), Buffer.from('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 'hex').toString('base64url'));
    assert.equal(sha256('abc').length, 43);
    assert.match(sha256('abc'), BASE64URL);
  });

  it('differs for different inputs and never returns the input', () => {
    const token = newOpaqueToken();
    assert.notEqual(sha256(token), token);
    assert.notEqual(sha256('abc'), sha256('abd'));
    assert.notEqual(sha256(''), sha256(' '));
  });
});

describe('sessionLabel', () => {
  it('is 12 lower-case hex characters, stable for one value', () => {
    const token = newOpaqueToken();
    const label = sessionLabel(token);
    assert.match(label, /^[0-9a-f]{12}$/);
    assert.equal(sessionLabel(token), label);
  });

  it('differs from the storage hash, so a label cannot be used to look a token up', () => {
    const token = newOpaqueToken();
    const label = sessionLabel(token);
    const stored = sha256(token);
    assert.notEqual(label, stored);
    assert.ok(!stored.startsWith(label));
    assert.notEqual(label, createHash('sha256').update(token).digest('hex').slice(0, 12));
    assert.ok(!token.includes(label));
  });

  it('differs between values', () => {
    assert.notEqual(sessionLabel('one'), sessionLabel('two'));
  });
});

describe('constantTimeEqual', () => {
  it('is true only for equal strings', () => {
    assert.equal(constantTimeEqual('same-value', 'same-value'), true);
    assert.equal(constantTimeEqual('', ''), true);
    assert.equal(constantTimeEqual('same-value', 'same-valuE'), false);
    assert.equal(constantTimeEqual('abc', 'abd'), false);
  });

  it('is false for different lengths (without throwing as timingSafeEqual would)', () => {
    assert.equal(constantTimeEqual('abc', 'abcd'), false);
    assert.equal(constantTimeEqual('abcd', 'abc'), false);
    assert.equal(constantTimeEqual('', 'a'), false);
  });

  it('compares bytes, so strings of equal length but different UTF-8 size do not match', () => {
    assert.equal(constantTimeEqual('é', 'e'), false);
    assert.equal(constantTimeEqual('ée', 'éé'), false);
    assert.equal(constantTimeEqual('é', 'é'), true);
  });
});
