import { randomBytes } from 'node:crypto';
import type { Store, StoreKey } from '../../storage/store.js';
import type { ApplicationType } from '../clients/client-metadata.js';

/** Store kind of registration records; the id is the client_id itself (not a secret). */
export const REGISTRATION_KIND = 'client';
/** Every issued client_id starts so, which tells it apart from CIMD URLs and pinned ids at a glance. */
export const REGISTERED_CLIENT_ID_PREFIX = 'mcp-dyn-';

const CLIENT_ID = /^mcp-dyn-[A-Za-z0-9_-]{32}$/;

/** One registered client, as stored (JSON) under `<namespace>:client:<client_id>`. */
export interface RegistrationRecord {
  readonly v: 1;
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly string[];
  readonly responseTypes: readonly string[];
  readonly applicationType: ApplicationType;
  readonly clientName?: string;
  /** Seconds since the epoch (RFC 7591 `client_id_issued_at`). */
  readonly issuedAt: number;
}

/** An opaque id with 192 random bits; not guessable, though a public client's id is no secret. */
export function newRegisteredClientId(): string {
  return `${REGISTERED_CLIENT_ID_PREFIX}${randomBytes(24).toString('base64url')}`;
}

/** True for text shaped like an id this server issues; anything else is never looked up in storage. */
export function isRegisteredClientId(clientId: string): boolean {
  return CLIENT_ID.test(clientId);
}

export function registrationKey(namespace: string, clientId: string): StoreKey {
  return { namespace, kind: REGISTRATION_KIND, id: clientId };
}

/** Stores a new registration; false in the (astronomically unlikely) case the id is taken. */
export function saveRegistration(store: Store, namespace: string, record: RegistrationRecord, unusedSeconds: number): Promise<boolean> {
  return store.putIfAbsent(registrationKey(namespace, record.clientId), JSON.stringify(record), unusedSeconds);
}

/** The stored text as well as the record, so a touch can compare-and-set exactly what was read. */
export interface LoadedRegistration {
  readonly record: RegistrationRecord;
  readonly stored: string;
}

/** undefined for ids this server cannot have issued, expired ones and unreadable records. */
export async function loadRegistration(store: Store, namespace: string, clientId: string): Promise<LoadedRegistration | undefined> {
  if (!isRegisteredClientId(clientId)) return undefined;
  const stored = await store.get(registrationKey(namespace, clientId));
  if (stored === undefined) return undefined;
  const record = decodeRegistration(stored, clientId);
  return record === undefined ? undefined : { record, stored };
}

/**
 * Restarts the unused period of a registration. Compare-and-set rather than put, so a touch racing
 * with the record's expiry (or a later deletion) never brings it back. Resolves false when there was
 * nothing to touch. Rejects with StorageUnavailableError like any store operation.
 */
export async function touchRegistration(store: Store, namespace: string, clientId: string, unusedSeconds: number): Promise<boolean> {
  const loaded = await loadRegistration(store, namespace, clientId);
  if (loaded === undefined) return false;
  return store.compareAndSet(registrationKey(namespace, clientId), loaded.stored, loaded.stored, unusedSeconds);
}

function decodeRegistration(stored: string, clientId: string): RegistrationRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Partial<Record<keyof RegistrationRecord, unknown>>;
  const strings = (list: unknown): list is string[] => Array.isArray(list) && list.length > 0 && list.every((item) => typeof item === 'string');
  if (
    record.v !== 1 ||
    record.clientId !== clientId ||
    !strings(record.redirectUris) ||
    !strings(record.grantTypes) ||
    !strings(record.responseTypes) ||
    (record.applicationType !== 'web' && record.applicationType !== 'native') ||
    (record.clientName !== undefined && typeof record.clientName !== 'string') ||
    typeof record.issuedAt !== 'number'
  ) {
    return undefined;
  }
  return record as RegistrationRecord;
}
