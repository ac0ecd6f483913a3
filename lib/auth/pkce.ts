import { constantTimeEqual, sha256 } from './secrets.js';

// RFC 7636 §4.2: an S256 challenge is the base64url SHA-256 of the verifier, always 43 characters.
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
// RFC 7636 §4.1: the verifier is 43-128 unreserved characters.
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export function isValidChallenge(challenge: unknown): challenge is string {
  return typeof challenge === 'string' && CHALLENGE.test(challenge);
}

export function isValidVerifier(verifier: unknown): verifier is string {
  return typeof verifier === 'string' && VERIFIER.test(verifier);
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  return constantTimeEqual(sha256(verifier), challenge);
}
