import { isPlainObject } from '../core/is-plain-object.js';
import type { LogLine, ProgressReport } from './call-stream.js';
import { isLogLevel } from './log-levels.js';

/** Longest progress message or logger name passed on; longer ones are cut (they are for people). */
const MAX_TEXT = 1_000;

/**
 * `mcp-tool-progress` and `mcp-tool-log` payloads from the flow, checked. A refusal names the code
 * the node translates (`badProgress`, `badLog`) and the offending field, so the flow author sees
 * what to fix; nothing is sent for a refused message.
 */
export type Parsed<T> = { readonly ok: true; readonly executionId: string; readonly value: T } | { readonly ok: false; readonly field: string };

export function parseProgressPayload(payload: unknown): Parsed<ProgressReport> {
  if (!isPlainObject(payload) || typeof payload.executionId !== 'string' || payload.executionId === '') return { ok: false, field: 'executionId' };
  const { progress, total, message } = payload;
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return { ok: false, field: 'progress' };
  if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total))) return { ok: false, field: 'total' };
  if (message !== undefined && typeof message !== 'string') return { ok: false, field: 'message' };
  return {
    ok: true,
    executionId: payload.executionId,
    value: { progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message: message.slice(0, MAX_TEXT) } : {}) },
  };
}

export function parseLogPayload(payload: unknown): Parsed<LogLine> {
  if (!isPlainObject(payload) || typeof payload.executionId !== 'string' || payload.executionId === '') return { ok: false, field: 'executionId' };
  const { level, data, logger } = payload;
  if (!isLogLevel(level)) return { ok: false, field: 'level' };
  if (data === undefined) return { ok: false, field: 'data' };
  if (logger !== undefined && typeof logger !== 'string') return { ok: false, field: 'logger' };
  return {
    ok: true,
    executionId: payload.executionId,
    value: { level, data, ...(logger !== undefined ? { logger: logger.slice(0, MAX_TEXT) } : {}) },
  };
}
