import type { CallToolResult } from '@modelcontextprotocol/server';
import { isPlainObject } from '../core/is-plain-object.js';
import type { InputRequest } from '../input/input-requests.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The JSON-RPC error a failed task reports (MCP keeps `failed` for protocol-level failures). */
export interface TaskError {
  readonly code: number;
  readonly message: string;
}

/**
 * One task as the storage keeps it: enough for any instance behind the load balancer to answer
 * `tasks/get`, `tasks/result` and `tasks/cancel`, and to tell whether the instance running it is gone.
 */
export interface TaskRecord {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Epoch milliseconds; the wire shows ISO 8601. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /** Who may see the task (callerKey): '' on Local endpoints, where callers cannot be told apart. */
  readonly owner: string;
  readonly endpoint: string;
  readonly tool: string;
  /** The Node-RED instance whose flow runs the task, and the call's id there. */
  readonly instance: string;
  readonly executionId: string;
  readonly result?: CallToolResult;
  readonly error?: TaskError;
  /** While `input_required`: what the flow asked, keyed as it asked (2026-07-28 tasks). */
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
  /** The answers `tasks/update` brought so far for those questions. */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
}

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** How long the storage keeps a record: until its TTL, counted from creation, ends (at least 1 s). */
export function secondsLeft(record: TaskRecord, now: number): number {
  return Math.max(1, Math.ceil((record.createdAt + record.ttlMs - now) / 1000));
}

export function encodeRecord(record: TaskRecord): string {
  return JSON.stringify(record);
}

/** A stored record, or undefined for anything that is not one (a foreign or corrupted value). */
export function decodeRecord(text: string | undefined): TaskRecord | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value) || typeof value['taskId'] !== 'string' || typeof value['status'] !== 'string') return undefined;
  return value as unknown as TaskRecord;
}

/** The fields both protocol eras share, with timestamps as ISO 8601. */
function commonFields(record: TaskRecord) {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined ? { statusMessage: record.statusMessage } : {}),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
  };
}

/**
 * The tasks extension of 2026-07-28: a flat task with `ttlMs` and `pollIntervalMs`; `tasks/get`
 * inlines the result of a completed task and the error of a failed one (there is no tasks/result).
 */
export function modernTask(record: TaskRecord, detailed: boolean): Record<string, unknown> {
  return {
    ...commonFields(record),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
    ...(detailed && record.status === 'completed' && record.result ? { result: record.result } : {}),
    ...(record.status === 'input_required' && record.inputRequests ? { inputRequests: pendingRequests(record) } : {}),
    ...(detailed && record.status === 'failed' ? { error: record.error ?? { code: -32603, message: 'The task failed.' } } : {}),
  };
}

/** The tasks of 2025-11-25: `ttl` and `pollInterval` in milliseconds; results come from tasks/result. */
export function legacyTask(record: TaskRecord): Record<string, unknown> {
  return { ...commonFields(record), ttl: record.ttlMs, pollInterval: record.pollIntervalMs };
}

/** The questions of an `input_required` task that `tasks/update` has not answered yet. */
export function pendingRequests(record: TaskRecord): Record<string, InputRequest> {
  const pending: Record<string, InputRequest> = {};
  for (const [key, request] of Object.entries(record.inputRequests ?? {})) if (record.inputResponses?.[key] === undefined) pending[key] = request;
  return pending;
}
