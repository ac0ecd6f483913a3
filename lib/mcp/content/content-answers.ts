import type { GetPromptResult, PromptMessage, ReadResourceResult } from '@modelcontextprotocol/server';
import { APP_VIEW_MIME_TYPE } from '../app-ui.js';
import { isPlainObject } from '../json-schema.js';

type ResourceContents = ReadResourceResult['contents'][number];

/** A flow's answer that cannot be sent; the text says what was wrong with it. */
export class InvalidAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidAnswerError';
  }
}

/**
 * Turns the flow's `contents` into a `resources/read` result. Accepted: a string (text), a Buffer
 * (binary, sent base64), one contents object or an array of them (`{ text }` or `{ blob }` with
 * optional `uri` and `mimeType`). Missing `uri` / `mimeType` take the request's URI and the
 * resource's MIME type. Larger than `maxBytes` in total is refused rather than cut, because a cut
 * document or image would be silently wrong.
 */
export function resourceResultFrom(contents: unknown, uri: string, mimeType: string | undefined, maxBytes: number): ReadResourceResult {
  const items = Array.isArray(contents) ? contents : [contents];
  if (items.length === 0) throw new InvalidAnswerError('the flow answered with no contents');
  let bytes = 0;
  const normalized = items.map((item, index): ResourceContents => {
    const base = (own: Record<string, unknown>) => {
      const itemMime = typeof own.mimeType === 'string' ? own.mimeType : mimeType;
      return { uri: typeof own.uri === 'string' && own.uri !== '' ? own.uri : uri, ...(itemMime ? { mimeType: itemMime } : {}) };
    };
    if (typeof item === 'string') {
      bytes += Buffer.byteLength(item);
      return { ...base({}), text: item };
    }
    if (Buffer.isBuffer(item) || item instanceof Uint8Array) {
      const blob = Buffer.from(item).toString('base64');
      bytes += blob.length;
      return { ...base({}), blob };
    }
    if (isPlainObject(item) && typeof item.text === 'string') {
      bytes += Buffer.byteLength(item.text);
      return { ...base(item), text: item.text };
    }
    if (isPlainObject(item) && (typeof item.blob === 'string' || Buffer.isBuffer(item.blob))) {
      const blob = typeof item.blob === 'string' ? item.blob : (item.blob as Buffer).toString('base64');
      bytes += blob.length;
      return { ...base(item), blob };
    }
    throw new InvalidAnswerError(`contents item ${index} has neither text nor blob`);
  });
  if (bytes > maxBytes) throw new InvalidAnswerError(`the contents are ${bytes} bytes, over the ${maxBytes}-byte limit`);
  return { contents: normalized };
}

/**
 * A flow's answer for an app view: one HTML document of the extension's type at the URI read, sent
 * with the node's `_meta.ui` only (resourceResultFrom keeps no `_meta` of the flow's), so no flow can
 * give a view broader content security than its node declares.
 */
export function appViewResult(result: ReadResourceResult, uri: string, appMeta: Readonly<Record<string, unknown>>): ReadResourceResult {
  if (result.contents.length !== 1) throw new InvalidAnswerError(`an app view is one HTML document, not ${result.contents.length} contents items`);
  const item = result.contents[0]!;
  if (item.mimeType !== APP_VIEW_MIME_TYPE) throw new InvalidAnswerError(`an app view is ${APP_VIEW_MIME_TYPE}, not ${String(item.mimeType ?? 'untyped')}`);
  if (item.uri !== uri) throw new InvalidAnswerError(`an app view answers for its own URI ${uri}, not ${item.uri}`);
  return { contents: [{ ...item, _meta: { ...appMeta } }] };
}

/**
 * Turns the flow's `messages` into a `prompts/get` result. Each message is `{ role, content }` where
 * content is a string (text) or an MCP content block (text, image, audio, resource, resource_link).
 */
export function promptResultFrom(messages: unknown, description: string | undefined, maxBytes: number): GetPromptResult {
  const list = isPlainObject(messages) && Array.isArray(messages.messages) ? messages.messages : messages;
  if (!Array.isArray(list) || list.length === 0) throw new InvalidAnswerError('the flow answered with no messages');
  const normalized = list.map((message, index): PromptMessage => {
    if (!isPlainObject(message) || (message.role !== 'user' && message.role !== 'assistant')) {
      throw new InvalidAnswerError(`message ${index} needs a role of "user" or "assistant"`);
    }
    const content = message.content;
    if (typeof content === 'string') return { role: message.role, content: { type: 'text', text: content } };
    if (isPlainObject(content) && typeof content.type === 'string') return { role: message.role, content: content as PromptMessage['content'] };
    throw new InvalidAnswerError(`message ${index} needs content: text or an MCP content block`);
  });
  const result: GetPromptResult = { ...(description ? { description } : {}), messages: normalized };
  const bytes = Buffer.byteLength(JSON.stringify(result));
  if (bytes > maxBytes) throw new InvalidAnswerError(`the messages are ${bytes} bytes, over the ${maxBytes}-byte limit`);
  return result;
}
