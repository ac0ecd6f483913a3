import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { isValidChallenge, isValidVerifier, verifierMatches } from '../../lib/auth/pkce.js';

// RFC 7636 Appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('isValidChallenge', () => {
  it('accepts 43 base64url characters (the S256 length)', () => {
    assert.equal(isValidChallenge(RFC_CHALLENGE), true);
    assert.equal(isValidChallenge('A'.repeat(43)), true);
    assert.equal(isValidChallenge('-_'.repeat(21) + 'z'), true);
  });

  it('refuses 42 and 44 characters', () => {
    assert.equal(isValidChallenge('A'.repeat(42)), false);
    assert.equal(isValidChallenge('A'.repeat(44)), false);
    assert.equal(isValidChallenge(RFC_CHALLENGE.slice(1)), false);
    assert.equal(isValidChallenge(`${RFC_CHALLENGE}A`), false);
  });

  it("refuses the base64 (not base64url) characters '+', '/' and '=' padding", () => {
    for (const bad of ['+', '/', '=']) {
      assert.equal(isValidChallenge(`${'A'.repeat(42)}${bad}`), false, bad);
      assert.equal(isValidChallenge(`${bad}${'A'.repeat(42)}`), false, bad);
    }
    // The padded base64 form of the RFC's challenge is 44 characters and carries '='.
    const padded = createHash('sha256').update(RFC_VERIFIER).digest('base64');
    assert.equal(isValidChallenge(padded), false);
  });

  it('refuses empty, whitespace and non-strings', () => {
    assert.equal(isValidChallenge(''), false);
    assert.equal(isValidChallenge(`${'A'.repeat(42)} `), false);
    assert.equal(isValidChallenge(` ${'A'.repeat(43)}`), false);
    assert.equal(isValidChallenge(`${'A'.repeat(43)}\n`), false);
    for (const value of [undefined, null, 43, ['A'.repeat(43)], { challenge: RFC_CHALLENGE }]) {
      assert.equal(isValidChallenge(value), false, JSON.stringify(value));
    }
  });
});

describe('isValidVerifier', () => {
  it('accepts 43 to 128 unreserved characters', () => {
    assert.equal(isValidVerifier(RFC_VERIFIER), true);
    assert.equal(isValidVerifier('a'.repeat(43)), true);
    assert.equal(isValidVerifier('a'.repeat(128)), true);
    // Every unreserved character: ALPHA / DIGIT / "-" / "." / "_" / "~".
    assert.equal(isValidVerifier('AZaz09-._~'.repeat(5)), true);
  });

  it('refuses 42 and 129 characters', () => {
    assert.equal(isValidVerifier('a'.repeat(42)), false);
    assert.equal(isValidVerifier('a'.repeat(129)), false);
  });

  it('refuses a space and other reserved characters', () => {
    assert.equal(isValidVerifier(`${'a'.repeat(42)} `), false);
    assert.equal(isValidVerifier(`${'a'.repeat(21)} ${'a'.repeat(21)}`), false);
    for (const bad of ['+', '/', '=', '%', '!', '*', '\n']) {
      assert.equal(isValidVerifier(`${'a'.repeat(50)}${bad}`), false, JSON.stringify(bad));
    }
  });

  it('refuses non-strings', () => {
    for (const value of [undefined, null, 12345, ['a'.repeat(43)]]) assert.equal(isValidVerifier(value), false);
  });
});

describe('verifierMatches', () => {
  it('matches the RFC 7636 Appendix B vector', () => {
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_CHALLENGE), true);
  });

  it('refuses a different verifier or a different challenge', () => {
    assert.equal(verifierMatches(`${RFC_VERIFIER.slice(0, -1)}l`, RFC_CHALLENGE), false);
    assert.equal(verifierMatches(RFC_VERIFIER, `${RFC_CHALLENGE.slice(0, -1)}N`), false);
    // The plain method is not supported: the verifier itself is never a matching challenge.
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_VERIFIER), false);
  });

  it('refuses a padded or shorter challenge without throwing', () => {
    assert.equal(verifierMatches(RFC_VERIFIER, `${RFC_CHALLENGE}=`), false);
    assert.equal(verifierMatches(RFC_VERIFIER, RFC_CHALLENGE.slice(0, 42)), false);
    assert.equal(verifierMatches(RFC_VERIFIER, ''), false);
  });
});
