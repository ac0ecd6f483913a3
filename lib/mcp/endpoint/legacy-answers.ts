import type { ServerResponse } from 'node:http';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallerIdentity } from '../../access/access-policy.js';
import { callerWithGroupsKey } from '../../access/caller-key.js';
import type { Logger } from '../../core/logger.js';
import { sendJsonRpcError } from '../../http/responses.js';
import { MAX_ANSWERS_PER_POST, type ClientAnswer, type LegacyInputRelay } from '../../input/legacy-input-relay.js';

/**
 * Hands each answer to the question it answers, here or on the instance that asked (lib/input).
 * Accepted (202) when every answer went somewhere; 400 with -32602 naming each answer that does not
 * fit its question (nothing of the POST is delivered), with -32600 for more answers than a batch
 * may hold or when one answers nothing this instance knows of.
 */
export async function takeClientAnswers(relay: LegacyInputRelay, path: string, logger: Logger, answers: readonly ClientAnswer[], caller: CallerIdentity, res: ServerResponse): Promise<void> {
  if (answers.length > MAX_ANSWERS_PER_POST) return sendJsonRpcError(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_ANSWERS_PER_POST} messages`);
  const outcome = await relay.answerAll(answers, callerWithGroupsKey(caller)).catch(() => ({ delivered: 0, forwarded: 0, unknown: answers.length }));
  if ('invalid' in outcome) {
    logger.debug(`MCP answer on ${path} refused: ${outcome.invalid.length} answer(s) do not fit the question they answer`);
    const named = outcome.invalid.slice(0, 5).map(({ id, problem }) => `request ${JSON.stringify(id)}: ${problem}`);
    return sendJsonRpcError(res, 400, ProtocolErrorCode.InvalidParams, `Invalid answer, nothing was delivered: ${named.join('; ')}.`);
  }
  if (outcome.unknown === 0 && answers.length > 0) return void res.writeHead(202).end();
  logger.debug(`MCP answer on ${path} refused: ${outcome.unknown || 'no'} answer(s) matched a question a flow asked`);
  sendJsonRpcError(res, 400, -32600, 'Invalid request: no question a flow asked is waiting for this answer (it was answered already, timed out, or came from another caller).');
}
