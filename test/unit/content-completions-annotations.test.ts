import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { completeFromFlow } from '../../lib/mcp/content/completion-values.js';
import { InvalidAnswerError } from '../../lib/mcp/content/content-answers.js';
import { answerFrom, cancelMessage, requestMessage } from '../../lib/mcp/content/content-messages.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { paletteCode } from '../support/palette-errors.js';

// Without a MIME type (blank), so the listings show only what each test sets.
const resource = (uri: string, extra: Record<string, unknown> = {}) => parseResourceConfig({ resourceName: 'r', uri, endpoint: '/mcp', mimeType: '', ...extra });

describe('resource annotations and size', () => {
  it('lists audience, priority and size as set in the editor', () => {
    const listed = resource('plant://manual', { size: '2048', audience: 'both', priority: '0.8' }).listing;
    assert.deepEqual(listed, { uri: 'plant://manual', name: 'r', annotations: { audience: ['user', 'assistant'], priority: 0.8 }, size: 2048 });
    assert.deepEqual(resource('plant://a', { audience: 'assistant' }).listing, { uri: 'plant://a', name: 'r', annotations: { audience: ['assistant'] } });
  });

  it('lists neither for nodes saved without them, and no size on a template', () => {
    assert.deepEqual(resource('plant://old').listing, { uri: 'plant://old', name: 'r' });
    assert.deepEqual(resource('s://{x}', { size: '10', priority: '1' }).listing, { uriTemplate: 's://{x}', name: 'r', annotations: { priority: 1 } });
  });

  it('refuses a size, priority or audience it cannot list', () => {
    assert.equal(paletteCode(() => resource('plant://a', { size: '-1' })), 'invalid_size');
    assert.equal(paletteCode(() => resource('plant://a', { size: '1.5' })), 'invalid_size');
    assert.equal(paletteCode(() => resource('plant://a', { priority: '1.5' })), 'invalid_priority');
    assert.equal(paletteCode(() => resource('plant://a', { priority: 'high' })), 'invalid_priority');
    assert.equal(paletteCode(() => resource('plant://a', { audience: 'everyone' })), 'invalid_audience');
  });
});

describe('flow-answered completions', () => {
  it('marks template variables and prompt arguments the flow completes', () => {
    assert.deepEqual([...resource('s://{line}/{shift}', { completions: 'line: a, b', flowCompletions: 'shift' }).flowCompletions], ['shift']);
    const prompt = parsePromptConfig({
      promptName: 'p',
      endpoint: '/mcp',
      arguments: [{ name: 'machine', completion: 'flow', values: 'ignored' }, { name: 'period', values: 'day, week' }],
      messages: [{ role: 'user', text: 'x' }],
    });
    assert.deepEqual([...prompt.flowCompletions], ['machine']);
    assert.deepEqual([...prompt.completions.keys()], ['period']);
  });

  it('refuses a flow completion for an unknown variable or one that has a list', () => {
    assert.equal(paletteCode(() => resource('s://{line}', { flowCompletions: 'lane' })), 'invalid_flow_completions');
    assert.equal(paletteCode(() => resource('s://{line}', { completions: 'line: a', flowCompletions: 'line' })), 'invalid_flow_completions');
    assert.equal(paletteCode(() => resource('plant://fixed', { flowCompletions: 'line' })), 'invalid_flow_completions');
  });

  it('filters what the flow answered by the typed prefix and caps it at 100', () => {
    const many = Array.from({ length: 150 }, (_, index) => `press-${index}`);
    const result = completeFromFlow({ values: [...many, 'lathe-1'] }, 'PRESS');
    assert.equal(result.completion.values.length, 100);
    assert.equal(result.completion.total, 150);
    assert.equal(result.completion.hasMore, true);
    assert.deepEqual(completeFromFlow(['a1', 'b1'], 'a').completion, { values: ['a1'], total: 1, hasMore: false });
  });

  it("keeps the flow's total and hasMore when it already filtered", () => {
    assert.deepEqual(completeFromFlow({ values: ['ab', 'ac'], total: 40, hasMore: true }, 'a').completion, { values: ['ab', 'ac'], total: 40, hasMore: true });
    // A total that the filter made wrong is replaced by the count that matched.
    assert.deepEqual(completeFromFlow({ values: ['ab', 'x'], total: 40 }, 'a').completion, { values: ['ab'], total: 1, hasMore: false });
  });

  it('refuses an answer without a list of strings', () => {
    for (const answer of [undefined, { values: 'a,b' }, { values: [1, 2] }, { total: 3 }]) {
      assert.throws(() => completeFromFlow(answer, ''), InvalidAnswerError);
    }
  });
});

describe('content messages', () => {
  const context = { endpoint: '/plant', prompt: 'report', protocolVersion: '2026-07-28', requestId: 7 };

  it('sends mcp-completion with the ref, the argument and the other arguments', () => {
    const message = requestMessage('e-1', { kind: 'completion', ref: { type: 'ref/prompt', name: 'report' }, argument: { name: 'machine', value: 'pr' }, arguments: { period: 'day' }, context });
    assert.deepEqual(message, {
      topic: 'mcp-completion',
      payload: { ref: { type: 'ref/prompt', name: 'report' }, argument: { name: 'machine', value: 'pr' }, context: { arguments: { period: 'day' } }, executionId: 'e-1' },
      mcp: context,
    });
  });

  it('names each kind of abandoned request with its own cancel topic', () => {
    assert.equal(cancelMessage('e', 'timeout', { kind: 'resource-read', uri: 'a://b', variables: {}, context }).topic, 'mcp-resource-cancel');
    assert.equal(cancelMessage('e', 'stopped', { kind: 'prompt-get', name: 'p', arguments: {}, context }).topic, 'mcp-prompt-cancel');
    const completion = cancelMessage('e', 'disconnected', { kind: 'completion', ref: { type: 'ref/resource', uri: 's://{x}' }, argument: { name: 'x', value: '' }, context });
    assert.deepEqual(completion, { topic: 'mcp-completion-cancel', payload: { executionId: 'e', reason: 'disconnected' }, mcp: context });
  });

  it('reads the answer of mcp-completion-response from values, total and hasMore', () => {
    assert.deepEqual(answerFrom('mcp-completion-response', { executionId: 'e', values: ['a'], total: 3 }), { values: ['a'], total: 3, hasMore: undefined });
    assert.equal(answerFrom('mcp-resource-response', { contents: 'x' }), 'x');
  });
});

describe('content catalog pages', () => {
  it('pages resources, templates and prompts and keeps one-page lists unchanged', () => {
    const resources = ['a://1', 'a://2', 'a://3', 't://{x}'].map((uri) => resource(uri));
    const prompts = ['p1', 'p2'].map((name) => parsePromptConfig({ promptName: name, endpoint: '/mcp', messages: [{ role: 'user', text: 'x' }] }));
    const catalog = new ContentCatalog(resources, prompts, 2);
    const first = catalog.resourcePages.page(undefined);
    assert.deepEqual(first.resources.map((r) => r.uri), ['a://1', 'a://2']);
    assert.deepEqual(catalog.resourcePages.page(first.nextCursor).resources.map((r) => r.uri), ['a://3']);
    assert.equal(catalog.resourcePages.page(first.nextCursor).nextCursor, undefined);
    assert.deepEqual(catalog.promptPages.page(undefined), { prompts: prompts.map((p) => p.listing) });
    assert.deepEqual(catalog.templatePages.page(undefined), { resourceTemplates: [resources[3]!.listing] });
    assert.throws(() => catalog.promptPages.page(first.nextCursor), /Invalid cursor for prompts\/list/);
  });
});
