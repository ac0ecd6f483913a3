import { isPlainObject } from './json-schema.js';

/** A `subscriptions/listen` request, as far as the endpoint looks into it before the SDK serves it. */
export interface ListenRequest {
  /** The body to hand on: unchanged, or with the resource URIs narrowed to the ones served here. */
  readonly body: Record<string, unknown>;
  /** The resource URIs the stream will hear about (after narrowing). */
  readonly uris: readonly string[];
  /** The URIs left out because the endpoint serves no such resource. */
  readonly unknown: readonly string[];
}

/**
 * Narrows a listen request's `resourceSubscriptions` to URIs the endpoint serves (a fixed URI or one
 * a template matches), so the acknowledgement, which echoes what the server will honour, tells the
 * client at once which URIs it will never hear about. Anything else in the request is left to the
 * SDK to validate. Returns undefined for a body that is not one `subscriptions/listen` request.
 */
export function narrowListenRequest(body: unknown, isServed: (uri: string) => boolean): ListenRequest | undefined {
  if (!isPlainObject(body) || body['method'] !== 'subscriptions/listen') return undefined;
  const params = body['params'];
  const notifications = isPlainObject(params) ? params['notifications'] : undefined;
  const requested = isPlainObject(notifications) ? notifications['resourceSubscriptions'] : undefined;
  // Malformed filters are the SDK's to refuse (-32602), with its own message.
  if (!Array.isArray(requested) || !requested.every((uri) => typeof uri === 'string')) return { body, uris: [], unknown: [] };
  const uris = requested.filter((uri) => isServed(uri));
  const unknown = requested.filter((uri) => !isServed(uri));
  if (unknown.length === 0) return { body, uris, unknown };
  const narrowed = { ...body, params: { ...(params as Record<string, unknown>), notifications: { ...(notifications as Record<string, unknown>), resourceSubscriptions: uris } } };
  return { body: narrowed, uris, unknown };
}
