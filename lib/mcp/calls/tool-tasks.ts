import { ProtocolError, ProtocolErrorCode, type CallToolRequest, type CallToolResult, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import { callerKey } from '../../access/caller-key.js';
import { DEFAULTS } from '../../core/defaults.js';
import { describeError } from '../../core/errors.js';
import type { ExecutionBroker, ExecutionOutcome, RoundInput } from '../../execution/broker.js';
import type { CancelReason } from '../../execution/cancellation.js';
import type { InputKind } from '../../input/input-requests.js';
import { continueRounds, MAX_INPUT_ROUNDS, NOTHING_DECLARED } from '../../input/input-rounds.js';
import type { StartRefusal, TaskEnding, TaskManager } from '../../tasks/task-manager.js';
import { legacyTask, modernTask } from '../../tasks/task-record.js';
import type { CallOutcome, ExecutionContext } from './call-types.js';
import { firstAnswerProblem } from '../../input/answer-checks.js';
import { canTake } from '../round-trips.js';
import { declaresTasksExtension, missingTasksExtension, storageError, type Era } from '../task-handlers.js';
import type { ToolDefinition } from '../tool-definition.js';
import { formatSeconds, resultFromOutcome } from '../tool-result.js';
import { SERVER_BUSY } from '../json-rpc-codes.js';

/** What a tool call running as a task needs of its endpoint. */
export interface ToolTaskDependencies {
  readonly path: string;
  readonly tasks: TaskManager;
  /** The endpoint's broker for tasks: their own limit, so hour-long jobs never take the slots of quick calls. */
  readonly broker: ExecutionBroker<ExecutionContext>;
  readonly onAbandoned?: (executionId: string, reason: CancelReason, context: ExecutionContext) => void;
  readonly measureResponses?: () => boolean;
}

/**
 * Whether this call runs as a task: the tool allows it and the client can poll for it (2026-07-28:
 * the tasks extension declared on the request; 2025-11-25: the `task` parameter). A tool that
 * requires a task refuses a client that cannot take one; on 2025-11-25 a client may not ask for a
 * task of a tool that does not offer one (on 2026-07-28 the server alone decides, so it is ignored).
 */
export function runsAsTask(tool: ToolDefinition, era: Era, request: CallToolRequest, handlerCtx: ServerContext): boolean {
  const support = tool.taskSupport ?? 'forbidden';
  if (era === 'modern') {
    if (support === 'forbidden') return false;
    if (declaresTasksExtension(handlerCtx)) return true;
    if (support === 'required') throw missingTasksExtension(`tool "${tool.name}" runs only as a task, so it`);
    return false;
  }
  const asked = (request.params as { task?: unknown }).task !== undefined;
  if (asked && support === 'forbidden') {
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Tool "${tool.name}" does not run as a task: call it without the task parameter.`);
  }
  if (!asked && support === 'required') {
    throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `Tool "${tool.name}" runs only as a task: call it with the task parameter.`);
  }
  return asked;
}

/**
 * Stores the task, starts the flow on it and answers with the task at once. The flow keeps the
 * executionId and answers whenever it is done; `report` is told once, when the task ends.
 */
export async function startToolTask(
  deps: ToolTaskDependencies,
  server: Server,
  era: Era,
  tool: ToolDefinition,
  args: Record<string, unknown>,
  context: ExecutionContext,
  caller: CallerIdentity,
  roundInput: { readonly first: RoundInput | undefined; readonly clientCapabilities: Record<string, unknown> | undefined },
  report: (outcome: CallOutcome, result: CallToolResult | undefined, bytes: number) => void,
): Promise<Record<string, unknown>> {
  const { tasks, broker: taskBroker } = deps;
  const maxBytes = Math.min(tasks.limits.maxResultBytes, DEFAULTS.maxResultBytes);
  const started = await tasks
    .start({
      owner: callerKey(caller),
      tool: tool.name,
      run: async (executionId, taskId) => {
        const begin = async (input: RoundInput | undefined): Promise<ExecutionOutcome> => {
          try {
            return await taskBroker.begin({
              // Every round keeps the task's executionId, so tasks/cancel reaches whichever round runs.
              executionId,
              toolName: tool.name,
              arguments: args,
              timeoutMs: tool.timeoutMs,
              maxTotalMs: tool.maxDurationMs,
              context: { ...context, taskId },
              progressToken: false,
              ...(input !== undefined ? { input } : {}),
              ...(roundInput.clientCapabilities !== undefined ? { clientCapabilities: roundInput.clientCapabilities } : {}),
            });
          } catch (error) {
            return { kind: 'stopped', reason: describeError(error) };
          }
        };
        let outcome = await begin(roundInput.first);
        if (outcome.kind === 'input') {
          // On 2026-07-28 the task turns input_required and waits for tasks/update; a 2025-11-25
          // task has no way to take questions, so its flow is told so at once.
          const capabilities = roundInput.clientCapabilities;
          outcome = (await continueRounds(
            {
              begin,
              deliver: async (ask, round, askingRound) => {
                await tasks.ask(taskId, ask.requests);
                const answered = await tasks.awaitAnswers(taskId, Math.max(tool.timeoutMs, tool.maxDurationMs ?? 0));
                const carried = ask.state !== undefined ? { state: ask.state } : {};
                if ('answers' in answered) {
                  // tasks/update checked them; this instance asked, so it checks again before its flow sees
                  // anything (a record written by another version, or by hand, is not trusted either).
                  const invalid = firstAnswerProblem(ask.requests, answered.answers);
                  if (invalid) return { next: { round, inputError: { code: -32602, message: `The client's answer to "${invalid.key}" was refused: ${invalid.problem}.`, keys: [invalid.key] }, ...carried } };
                  return { next: { round, inputResponses: answered.answers, ...carried } };
                }
                deps.onAbandoned?.(askingRound, answered.ended === 'timeout' ? 'timeout' : 'cancelled', { ...context, taskId });
                if (answered.ended === 'timeout') return { ended: { kind: 'timeout', timeoutMs: Math.max(tool.timeoutMs, tool.maxDurationMs ?? 0), client: true } };
                return { ended: { kind: 'cancelled', byClient: true } };
              },
              declared: tool.asks ?? NOTHING_DECLARED,
              ...(capabilities !== undefined ? { clientCan: (kind: InputKind) => canTake(capabilities, kind) } : {}),
              ...(era === 'legacy' ? { cannotAsk: `Tool "${tool.name}" runs as a 2025-11-25 task, which cannot ask the client: answer with mcp-tool-response.` } : {}),
              maxRounds: MAX_INPUT_ROUNDS,
              what: `Tool "${tool.name}"`,
            },
            outcome,
            roundInput.first,
          )) as ExecutionOutcome;
        }
        // The same result a plain call would get: the task keeps it, or its text when the task failed.
        const ending = taskEndingOf(outcome, server.projectCallToolResult(resultFromOutcome(tool, outcome, maxBytes), tool.outputSchema));
        const result = ending.status === 'completed' ? ending.result : undefined;
        const telemetry: CallOutcome = ending.status === 'completed' ? (ending.result.isError ? 'error' : 'success') : outcome.kind === 'answered' || outcome.kind === 'input' ? 'error' : outcome.kind;
        report(telemetry, result, result && deps.measureResponses?.() ? Buffer.byteLength(JSON.stringify(result)) : 0);
        return ending;
      },
    })
    .catch(storageError);
  if ('refused' in started) throw new ProtocolError(SERVER_BUSY, refusalMessage(started, deps.path, tasks.limits.ttlMs));
  // The SDK checks every tools/call answer as a CallToolResult, which needs `content`; an empty one
  // is what it adds itself on 2026-07-28. Clients that asked for a task read `task` (or `taskId`).
  return era === 'modern' ? { resultType: 'task', ...modernTask(started, false) } : { content: [], task: legacyTask(started) };
}


/** Why a new task was refused, for the -32000 the client gets: running now, or kept in the storage. */
function refusalMessage(refusal: StartRefusal, path: string, ttlMs: number): string {
  switch (refusal.refused) {
    case 'caller_full':
      return `Server busy: you already run ${refusal.limit} tasks on ${path}; retry when one has finished.`;
    case 'endpoint_full':
      return `Server busy: the endpoint already runs ${refusal.limit} tasks on ${path}; retry when one has finished.`;
    case 'caller_stored_full':
      return `Too many stored tasks: ${path} already keeps ${refusal.limit} of your tasks (each is kept for ${formatSeconds(ttlMs)} after it starts, finished or not); retry when older ones have expired.`;
    case 'endpoint_stored_full':
      return `Too many stored tasks: ${path} already keeps ${refusal.limit} tasks (each is kept for ${formatSeconds(ttlMs)} after it starts, finished or not); retry when older ones have expired.`;
  }
}

/** How a task's call ended, as its record says: a tool's own error still completes the task. */
function taskEndingOf(outcome: ExecutionOutcome, result: CallToolResult): TaskEnding {
const text = () => String((result.content[0] as { text?: unknown } | undefined)?.text ?? 'The task failed.');
switch (outcome.kind) {
  case 'answered':
  case 'input':
    return { status: 'completed', result };
  case 'cancelled':
    return { status: 'cancelled', statusMessage: 'Cancelled by the client.' };
  case 'timeout':
    // MCP keeps `failed` for JSON-RPC errors: -32001 is the request time-out the SDKs use.
    return { status: 'failed', error: { code: -32001, message: text() } };
  case 'stopped':
    return { status: 'failed', error: { code: ProtocolErrorCode.InternalError, message: text() } };
}
}
