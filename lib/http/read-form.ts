import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError, mediaTypeOf, readBody } from './read-body.js';

/** Forms the bridge accepts (token, revocation, consent) are a few short fields. */
export const MAX_FORM_BYTES = 16 * 1024;

export type FormProblem = 'method' | 'media_type' | 'too_large' | 'unreadable' | 'repeated';

/**
 * One POSTed `application/x-www-form-urlencoded` body, every parameter at most once. A problem is
 * returned, not thrown, so each route answers it in its own protocol; the request is drained when
 * it is refused before its body was read.
 */
export async function readForm(req: IncomingMessage, maxBytes = MAX_FORM_BYTES): Promise<Map<string, string> | FormProblem> {
  if (req.method !== 'POST') {
    req.resume();
    return 'method';
  }
  if (mediaTypeOf(req) !== 'application/x-www-form-urlencoded') {
    req.resume();
    return 'media_type';
  }
  let body: Buffer;
  try {
    body = await readBody(req, maxBytes);
  } catch (error) {
    return error instanceof BodyTooLargeError ? 'too_large' : 'unreadable';
  }
  return singleParams(new URLSearchParams(body.toString('utf8')));
}

/** Query or form parameters, refusing repeats (RFC 6749 §3.1: each parameter at most once). */
export function singleParams(search: URLSearchParams): Map<string, string> | 'repeated' {
  const params = new Map<string, string>();
  for (const [key, value] of search) {
    if (params.has(key)) return 'repeated';
    params.set(key, value);
  }
  return params;
}
