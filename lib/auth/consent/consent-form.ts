import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError, mediaTypeOf, readBody } from '../../http/read-body.js';
import { singleParams } from '../bridge/redirects.js';
import { ConsentRefused } from './consent-refused.js';
import type { ConsentDecision } from './consent-types.js';

/** The form holds two 43-character tokens and a word; anything near this size is not our form. */
export const MAX_CONSENT_FORM_BYTES = 16 * 1024;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface ConsentForm {
  readonly handle: string;
  readonly csrf: string;
  readonly decision: ConsentDecision;
}

/**
 * Reads and checks the shape of the consent POST before storage is touched. Fetch metadata, where
 * the browser sends it, refuses cross-site and sibling-site submissions early; the cookie and token
 * checks that follow do not depend on it.
 */
export async function readConsentForm(req: IncomingMessage): Promise<ConsentForm> {
  if (req.method !== 'POST') {
    req.resume();
    throw new ConsentRefused('method');
  }
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') {
    req.resume();
    throw new ConsentRefused('cross_site');
  }
  if (mediaTypeOf(req) !== 'application/x-www-form-urlencoded') {
    req.resume();
    throw new ConsentRefused('media_type');
  }
  let body: Buffer;
  try {
    body = await readBody(req, MAX_CONSENT_FORM_BYTES);
  } catch (error) {
    throw new ConsentRefused(error instanceof BodyTooLargeError ? 'too_large' : 'bad_form');
  }
  const params = singleParams(new URLSearchParams(body.toString('utf8')));
  if (params === 'repeated') throw new ConsentRefused('bad_form');
  const handle = params.get('consent') ?? '';
  const csrf = params.get('csrf') ?? '';
  const decision = params.get('decision');
  if (!TOKEN.test(handle) || !TOKEN.test(csrf) || (decision !== 'approve' && decision !== 'deny')) throw new ConsentRefused('bad_form');
  return { handle, csrf, decision };
}
