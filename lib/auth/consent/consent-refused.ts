import type { ServerResponse } from 'node:http';
import { renderMessagePage, sendHtml } from './consent-page.js';

export type ConsentRefusalReason =
  | 'method'
  | 'media_type'
  | 'too_large'
  | 'bad_form'
  | 'cross_site'
  | 'cookie_missing'
  | 'unknown_consent'
  | 'csrf';

const DESCRIPTIONS: Readonly<Record<ConsentRefusalReason, string>> = {
  method: 'Answer with the Approve or Deny button on the approval page.',
  media_type: 'The approval form was not sent as a form.',
  too_large: 'The approval form is too large.',
  bad_form: 'The approval form is incomplete.',
  cross_site: 'This approval did not come from the page this server showed you. Start again from your MCP client.',
  cookie_missing: 'This approval did not come from the browser that was shown the page. Start again from your MCP client.',
  unknown_consent: 'This approval request is unknown, expired or already answered. Start again from your MCP client.',
  csrf: 'This approval could not be verified. Start again from your MCP client.',
};

const STATUS: Partial<Record<ConsentRefusalReason, number>> = { method: 405, too_large: 413 };

/**
 * Why a consent POST was not accepted, as data: the route renders it with sendConsentRefusal and
 * audits `reason`. The description is fixed text, safe to show; nothing from the request is in it.
 */
export class ConsentRefused extends Error {
  readonly reason: ConsentRefusalReason;
  readonly status: number;
  readonly description: string;

  constructor(reason: ConsentRefusalReason) {
    super(`consent refused (${reason})`);
    this.name = 'ConsentRefused';
    this.reason = reason;
    this.status = STATUS[reason] ?? 400;
    this.description = DESCRIPTIONS[reason];
  }
}

export function sendConsentRefusal(res: ServerResponse, refusal: ConsentRefused): void {
  const headers: Record<string, string> = refusal.reason === 'method' ? { allow: 'POST' } : {};
  sendHtml(res, refusal.status, renderMessagePage('Approval not accepted', refusal.description), headers);
}

/** Storage unreachable while asking or answering: an HTML 503, the page counterpart of temporarily_unavailable. */
export function sendConsentUnavailable(res: ServerResponse): void {
  sendHtml(res, 503, renderMessagePage('Temporarily unavailable', 'Sign-in is temporarily unavailable; try again shortly from your MCP client.'), {
    'retry-after': '5',
  });
}
