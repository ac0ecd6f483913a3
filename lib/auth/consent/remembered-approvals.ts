import type { Store, StoreKey } from '../../storage/store.js';
import { sha256 } from '../secrets.js';
import { CONSENT_KINDS, type ConsentRequest } from './consent-types.js';
import { redirectTarget } from './redirect-target.js';

/** One approval the user gave: this endpoint, sending back to this host, with at most these scopes. */
interface Approval {
  readonly endpointPath: string;
  readonly redirectHost: string;
  readonly scope: readonly string[];
  readonly approvedAt: number;
}

interface ApprovalRecord {
  readonly approvals: readonly Approval[];
}

/** Bounds the record however many endpoints one client is approved for. */
const MAX_APPROVALS = 32;
const WRITE_ATTEMPTS = 5;

/**
 * Approvals remembered per (namespace, subject, client): one record, so withdrawing them all when
 * the user revokes is one delete. Each entry is checked against its own age as well as the record's
 * TTL, because approving another endpoint later renews the record's TTL.
 */
export class RememberedApprovals {
  constructor(
    private readonly store: Store,
    private readonly namespace: string,
    private readonly now: () => number,
  ) {}

  async covers(request: ConsentRequest, rememberSeconds: number): Promise<boolean> {
    const record = parse(await this.store.get(this.key(request.subject, request.clientId)));
    const host = redirectTarget(request.redirectUri).host;
    const oldest = this.now() - rememberSeconds * 1000;
    return record.approvals.some(
      (approval) =>
        approval.approvedAt > oldest &&
        approval.endpointPath === request.endpointPath &&
        approval.redirectHost === host &&
        request.scope.every((scope) => approval.scope.includes(scope)),
    );
  }

  /**
   * Adds this approval with compare-and-set, so two approvals of the same client finishing at once
   * (two endpoints, two tabs) both stay. Returns false when it kept losing the race; the sign-in
   * goes on, the user is just asked again next time.
   */
  async remember(request: ConsentRequest, rememberSeconds: number): Promise<boolean> {
    const key = this.key(request.subject, request.clientId);
    const now = this.now();
    const oldest = now - rememberSeconds * 1000;
    const approval: Approval = {
      endpointPath: request.endpointPath,
      redirectHost: redirectTarget(request.redirectUri).host,
      scope: [...request.scope],
      approvedAt: now,
    };
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const current = await this.store.get(key);
      const kept = parse(current).approvals.filter(
        (entry) => entry.approvedAt > oldest && !(entry.endpointPath === approval.endpointPath && entry.redirectHost === approval.redirectHost),
      );
      const next = JSON.stringify({ approvals: [...kept.slice(-(MAX_APPROVALS - 1)), approval] } satisfies ApprovalRecord);
      const written =
        current === undefined
          ? await this.store.putIfAbsent(key, next, rememberSeconds)
          : await this.store.compareAndSet(key, current, next, rememberSeconds);
      if (written) return true;
    }
    return false;
  }

  async forget(subject: string, clientId: string): Promise<void> {
    await this.store.delete(this.key(subject, clientId));
  }

  /** Hashed, so storage never holds who approved what in the clear and ids cannot break the key. */
  private key(subject: string, clientId: string): StoreKey {
    return { namespace: this.namespace, kind: CONSENT_KINDS.approval, id: sha256(JSON.stringify([subject, clientId])) };
  }
}

function parse(text: string | undefined): ApprovalRecord {
  if (text === undefined) return { approvals: [] };
  try {
    const value = JSON.parse(text) as Partial<ApprovalRecord>;
    if (!Array.isArray(value.approvals)) return { approvals: [] };
    return {
      approvals: value.approvals.filter(
        (entry): entry is Approval =>
          typeof entry?.endpointPath === 'string' &&
          typeof entry.redirectHost === 'string' &&
          Array.isArray(entry.scope) &&
          typeof entry.approvedAt === 'number',
      ),
    };
  } catch {
    return { approvals: [] };
  }
}
