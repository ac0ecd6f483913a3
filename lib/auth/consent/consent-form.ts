import type { IncomingMessage } from 'node:http';
import { readForm } from '../../http/read-form.js';
import { ConsentRefused } from './consent-refused.js';
import type { ConsentDecision } from './consent-types.js';

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
  const params = await readForm(req);
  if (typeof params === 'string') throw new ConsentRefused(params === 'media_type' || params === 'too_large' ? params : 'bad_form');
  const handle = params.get('consent') ?? '';
  const csrf = params.get('csrf') ?? '';
  const decision = params.get('decision');
  if (!TOKEN.test(handle) || !TOKEN.test(csrf) || (decision !== 'approve' && decision !== 'deny')) throw new ConsentRefused('bad_form');
  return { handle, csrf, decision };
}
