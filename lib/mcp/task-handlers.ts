import { z } from 'zod';
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  RELATED_TASK_META_KEY,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isStorageUnavailable } from '../storage/store.js';
import { SERVER_BUSY } from './json-rpc-codes.js';
import { legacyTask, modernTask, type TaskRecord } from '../tasks/task-record.js';
import type { TaskManager } from '../tasks/task-manager.js';
import { TASK_DEFAULTS } from '../tasks/task-defaults.js';
import { refuseInvalidAnswers } from './round-trips.js';

/** The 2026-07-28 tasks extension (SEP-2663), as clients declare it per request. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type Era = 'legacy' | 'modern';

export interface TaskHandlerDependencies {
  readonly tasks: TaskManager;
  /** Who sent the request, as the task's owner (callerKey). */
  readonly ownerOf: (handlerCtx: ServerContext) => string;
  /**
   * Whether the request's caller may still use the task's tool: one who lost the group it needs
   * since the task began finds the task unknown, as any other caller's task.
   */
  readonly mayUse: (tool: string, handlerCtx: ServerContext) => boolean;
}

/** The server capabilities that announce tasks, per era. */
export function taskCapabilities(era: Era): Record<string, unknown> {
  return era === 'modern'
    ? { extensions: { [TASKS_EXTENSION]: {} } }
    : { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
}

/** Whether a 2026-07-28 request declares the tasks extension in its per-request capabilities. */
export function declaresTasksExtension(handlerCtx: ServerContext): boolean {
  // The SDK lifts the envelope out of `_meta`; a request it did not lift still has it in place.
  const envelope = handlerCtx.mcpReq.envelope as Record<string, unknown> | undefined;
  const meta = handlerCtx.mcpReq._meta as Record<string, unknown> | undefined;
  const capabilities = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? meta?.[CLIENT_CAPABILITIES_META_KEY]) as { extensions?: Record<string, unknown> } | undefined;
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

export function missingTasksExtension(what: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension in the request's client capabilities.`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** A storage outage while a task is created or looked up: nothing is lost, the client may retry. */
export function storageError(error: unknown): never {
  if (isStorageUnavailable(error)) {
    throw new ProtocolError(SERVER_BUSY, 'Task storage is temporarily unavailable; retry shortly.', { retryable: true });
  }
  throw error;
}

function unknownTask(taskId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task "${taskId}": it does not exist, has expired, or belongs to another caller.`);
}

const taskIdParams = z.looseObject({ taskId: z.string().min(1) });
const listParams = z.looseObject({ cursor: z.string().optional() });
// The SDK lifts `inputResponses` out of the params (they belong to multi round-trip requests).
const updateParams = z.looseObject({ taskId: z.string().min(1), inputResponses: z.record(z.string(), z.unknown()).optional() });

/**
 * `tasks/*` on one SDK `Server`. 2026-07-28 (the tasks extension): `tasks/get` inlines the result or
 * error, `tasks/update` and `tasks/cancel` answer an empty acknowledgement, and all three need the
 * extension declared on the request. 2025-11-25: `tasks/get`, `tasks/result` (waits for the end),
 * `tasks/list` and `tasks/cancel` (answers the task).
 */
export function registerTaskHandlers(server: Server, era: Era, deps: TaskHandlerDependencies): void {
  const { tasks } = deps;
  const find = async (taskId: string, handlerCtx: ServerContext): Promise<TaskRecord> => {
    const record = await tasks.get(taskId, deps.ownerOf(handlerCtx)).catch(storageError);
    if (!record || !deps.mayUse(record.tool, handlerCtx)) throw unknownTask(taskId);
    return record;
  };

  if (era === 'modern') {
    const gated = <P extends { taskId: string }>(method: string, answer: (params: P, handlerCtx: ServerContext) => Promise<Record<string, unknown>>) =>
      (params: P, handlerCtx: ServerContext) => {
        if (!declaresTasksExtension(handlerCtx)) throw missingTasksExtension(method);
        return answer(params, handlerCtx);
      };
    server.setRequestHandler('tasks/get', { params: taskIdParams }, gated('tasks/get', async (params, handlerCtx) => modernTask(await find(params.taskId, handlerCtx), true)));
    server.setRequestHandler(
      'tasks/update',
      { params: updateParams },
      // Answers to what the task's flow asked are kept for it; anything else is acknowledged and ignored.
      // An answer that does not fit its question is refused (-32602 naming it) and nothing is kept.
      gated('tasks/update', async (params, handlerCtx) => {
        const responses = (handlerCtx.mcpReq as { inputResponses?: Record<string, unknown> }).inputResponses ?? params.inputResponses ?? {};
        const record = await find(params.taskId, handlerCtx);
        if (record.status === 'input_required' && record.inputRequests) refuseInvalidAnswers(record.inputRequests, responses);
        const answer = await tasks.answer(params.taskId, deps.ownerOf(handlerCtx), responses).catch(storageError);
        if (answer === 'unknown') throw unknownTask(params.taskId);
        return {};
      }),
    );
    server.setRequestHandler(
      'tasks/cancel',
      { params: taskIdParams },
      gated('tasks/cancel', async (params, handlerCtx) => {
        await find(params.taskId, handlerCtx);
        const answer = await tasks.cancel(params.taskId, deps.ownerOf(handlerCtx)).catch(storageError);
        if (answer === 'unknown') throw unknownTask(params.taskId);
        return {};
      }),
    );
    return;
  }

  server.setRequestHandler('tasks/get', { params: taskIdParams }, async (params, handlerCtx) => legacyTask(await find(params.taskId, handlerCtx)));
  server.setRequestHandler('tasks/cancel', { params: taskIdParams }, async (params, handlerCtx) => {
    const { taskId } = params;
    const before = await find(taskId, handlerCtx);
    // 2025-11-25: a task that already ended cannot be cancelled.
    if (before.status === 'completed' || before.status === 'failed' || before.status === 'cancelled') {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task "${taskId}" has already ended (${before.status}) and cannot be cancelled.`);
    }
    await tasks.cancel(taskId, deps.ownerOf(handlerCtx)).catch(storageError);
    return legacyTask(await find(taskId, handlerCtx));
  });
  server.setRequestHandler('tasks/list', { params: listParams }, async (params, handlerCtx) => {
    const records = (await tasks.list(deps.ownerOf(handlerCtx)).catch(storageError)).filter((record) => deps.mayUse(record.tool, handlerCtx));
    const start = decodeCursor(params.cursor);
    const page = records.slice(start, start + TASK_DEFAULTS.listPageSize);
    const next = start + page.length;
    return { tasks: page.map(legacyTask), ...(next < records.length ? { nextCursor: encodeCursor(next) } : {}) };
  });
  server.setRequestHandler('tasks/result', { params: taskIdParams }, async (params, handlerCtx) => {
    const { taskId } = params;
    await find(taskId, handlerCtx);
    const record = await tasks.waitForEnd(taskId, deps.ownerOf(handlerCtx), handlerCtx.mcpReq.signal).catch(storageError);
    if (!record) throw unknownTask(taskId);
    const related = { [RELATED_TASK_META_KEY]: { taskId } };
    if (record.status === 'completed' && record.result) return { ...record.result, _meta: { ...record.result._meta, ...related } };
    if (record.status === 'failed') {
      const error = record.error ?? { code: ProtocolErrorCode.InternalError, message: 'The task failed.' };
      throw new ProtocolError(error.code, error.message, related);
    }
    if (record.status === 'cancelled') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task "${taskId}" was cancelled and has no result.`, related);
    // The client went away while waiting; nobody reads this.
    throw new ProtocolError(ProtocolErrorCode.InternalError, `Task "${taskId}" has not finished.`);
  });
}

/** `tasks/list` cursors are opaque to clients: a position, base64url-encoded. */
function encodeCursor(position: number): string {
  return Buffer.from(`tasks:${position}`).toString('base64url');
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^tasks:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor: pass the nextCursor of the previous tasks/list answer.');
  return Number(match[1]);
}
