import type { RefreshAuditEvent } from '../../lib/auth/refresh/refresh-audit.js';
import { parseRefreshLifetimes } from '../../lib/auth/refresh/lifetimes.js';
import { createRefreshService, type RefreshServiceOptions, type SessionGrant } from '../../lib/auth/refresh/refresh-service.js';
import type { UpstreamRefresher, UpstreamRefreshResult } from '../../lib/auth/upstream/upstream-refresh.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import type { Store } from '../../lib/storage/store.js';

// What the refresh service unit tests share: a provider that answers as scripted, a fake clock,
// and a service over MemoryStore that records its audit events and log lines.

/** The session a test's client holds for the MCP resource: its scope and the identity it was granted. */
export function sessionGrant(scope: string[], identity: SessionGrant['identity']): SessionGrant {
  return Object.freeze({
    clientId: 'https://client.example/oauth/client.json',
    client: 'client.example',
    resource: 'https://mcp.example/tools',
    scope,
    identity,
  });
}

export type Respond = (token: string, subject: string) => Promise<UpstreamRefreshResult>;

/** A provider that refreshes as `respond` says (by default: same subject, current groups, a new credential). */
export function scriptedUpstream() {
  const calls: { token: string; subject: string }[] = [];
  let groups: string[] = ['mcp-users'];
  const answer: Respond = async (_token, subject) => ({ identity: { subject, groups }, upstreamRefreshToken: `upstream-${calls.length}` });
  const upstream = {
    calls,
    /** The default answer, for a scripted `respond` that delegates to it. */
    answer,
    respond: answer,
    setGroups: (next: string[]) => void (groups = next),
    refresh(token: string, subject: string) {
      calls.push({ token, subject });
      return upstream.respond(token, subject);
    },
  };
  return upstream satisfies UpstreamRefresher;
}

/**
 * A refresh service at a fake time. `wrapStore` puts something between the service and the
 * MemoryStore (the resilience tests inject faults there); `memory` is always the store itself.
 */
export function refreshHarness(options: {
  namespace: string;
  key: Buffer;
  wrapStore?: (memory: MemoryStore) => Store;
  overrides?: Partial<RefreshServiceOptions>;
}) {
  let time = 1_700_000_000_000;
  const now = () => time;
  const memory = new MemoryStore({ now });
  const events: RefreshAuditEvent[] = [];
  const logs: string[] = [];
  const log = (level: string) => (message: string) => void logs.push(`${level}: ${message}`);
  const upstream = scriptedUpstream();
  const service = createRefreshService({
    store: options.wrapStore ? options.wrapStore(memory) : memory,
    namespace: options.namespace,
    key: options.key,
    lifetimes: parseRefreshLifetimes(),
    upstream,
    audit: (event) => void events.push(event),
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    now,
    ...options.overrides,
  });
  return { service, memory, upstream, events, logs, now, advance: (ms: number) => void (time += ms) };
}

export { refusal } from '../support/oauth-failure.js';

export const outcomes = (events: RefreshAuditEvent[]) => events.map((event) => event.outcome);
