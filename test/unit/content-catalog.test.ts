import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { ContentRegistry } from '../../lib/mcp/content/content-registry.js';
import { completeFrom, parseCompletionLines } from '../../lib/mcp/content/completion-values.js';
import { checkResourceUri, parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { checkPromptArguments, parsePromptConfig, renderPrompt } from '../../lib/mcp/content/prompt-definition.js';
import { promptResultFrom, resourceResultFrom } from '../../lib/mcp/content/content-answers.js';
import { paletteCode } from '../support/palette-errors.js';

const resource = (uri: string, extra: Record<string, unknown> = {}) =>
  parseResourceConfig({ resourceName: uri.replace(/\W+/g, '-'), uri, endpoint: '/mcp', mimeType: 'text/plain', ...extra });
const prompt = (name: string, extra: Record<string, unknown> = {}) =>
  parsePromptConfig({ promptName: name, endpoint: '/mcp', messages: [{ role: 'user', text: 'Report on {{machine}}' }], ...extra });

describe('resource definitions', () => {
  it('lists a fixed URI as a resource and a template as a resource template', () => {
    const fixed = resource('plant://line-1/status', { title: 'Line 1', description: 'status' });
    assert.deepEqual(fixed.listing, { uri: 'plant://line-1/status', name: 'plant-line-1-status', title: 'Line 1', description: 'status', mimeType: 'text/plain' });
    const template = resource('sensors://{line}/readings');
    assert.equal((template.listing as { uriTemplate?: string }).uriTemplate, 'sensors://{line}/readings');
    assert.deepEqual(template.template?.variables, ['line']);
  });

  it('refuses a bad URI, template, MIME type, name or completion line with a code', () => {
    assert.equal(paletteCode(() => resource('not a uri')), 'invalid_uri');
    assert.equal(paletteCode(() => resource('sensors://{+x}')), 'invalid_uri');
    assert.equal(paletteCode(() => resource('plant://x', { mimeType: 'text' })), 'invalid_mime_type');
    assert.equal(paletteCode(() => resource('plant://x', { resourceName: '' })), 'invalid_resource_name');
    assert.equal(paletteCode(() => resource('sensors://{line}', { completions: 'machine: a, b' })), 'invalid_completions');
    assert.equal(checkResourceUri('plant://x}'), 'has a "}" without its "{"');
    assert.equal(checkResourceUri('plant://ok'), undefined);
  });

  it('keeps static text only when the content is set in the editor', () => {
    assert.equal(resource('plant://a', { source: 'static', text: 'hi' }).staticText, 'hi');
    assert.equal(resource('plant://a', { source: 'flow', text: 'hi' }).staticText, undefined);
  });
});

describe('prompt definitions', () => {
  it('lists arguments and renders {{placeholders}}, empty for a declared argument not given', () => {
    const definition = prompt('report', {
      description: 'A report',
      arguments: [{ name: 'machine', description: 'which', required: true, values: 'press-1, press-2' }, { name: 'tone' }],
      messages: [
        { role: 'user', text: 'Report on {{machine}} in a {{ tone }} tone; keep {{other}}.' },
        { role: 'assistant', text: 'Sure.' },
      ],
    });
    assert.deepEqual(definition.listing.arguments, [
      { name: 'machine', description: 'which', required: true },
      { name: 'tone', required: false },
    ]);
    assert.deepEqual(renderPrompt(definition, { machine: 'press-1' }), {
      description: 'A report',
      messages: [
        { role: 'user', content: { type: 'text', text: 'Report on press-1 in a  tone; keep {{other}}.' } },
        { role: 'assistant', content: { type: 'text', text: 'Sure.' } },
      ],
    });
  });

  it('names a missing required, an unknown or a non-string argument', () => {
    const definition = prompt('report', { arguments: [{ name: 'machine', required: true }] });
    assert.equal(checkPromptArguments(definition, {}), 'Missing required argument "machine" for prompt "report".');
    assert.equal(checkPromptArguments(definition, { machine: 'a', extra: 'b' }), 'Unknown argument "extra" for prompt "report".');
    assert.equal(checkPromptArguments(definition, { machine: 1 }), 'Argument "machine" for prompt "report" must be a string.');
    assert.equal(checkPromptArguments(definition, { machine: 'a' }), undefined);
  });

  it('refuses duplicate argument names, bad names and a template without text', () => {
    assert.equal(paletteCode(() => prompt('p', { arguments: [{ name: 'a' }, { name: 'a' }] })), 'duplicate_argument');
    assert.equal(paletteCode(() => prompt('p', { arguments: [{ name: 'a b' }] })), 'invalid_argument_name');
    assert.equal(paletteCode(() => prompt('bad name')), 'invalid_prompt_name');
    assert.equal(paletteCode(() => prompt('p', { messages: [{ role: 'user', text: '  ' }] })), 'no_messages');
    assert.equal(prompt('p', { source: 'flow', messages: [] }).template, undefined);
  });
});

describe('content catalog', () => {
  it('finds fixed URIs before templates and declares only the capabilities it has', () => {
    const catalog = new ContentCatalog(
      [resource('sensors://{line}/readings'), resource('sensors://line-9/readings'), resource('plant://a')],
      [],
    );
    assert.deepEqual(catalog.findResource('sensors://line-9/readings')?.variables, {});
    assert.deepEqual(catalog.findResource('sensors://line-2/readings')?.variables, { line: 'line-2' });
    assert.equal(catalog.findResource('sensors://x'), undefined);
    assert.deepEqual(catalog.resourcesResult.resources.map((r) => r.uri), ['plant://a', 'sensors://line-9/readings']);
    assert.deepEqual(catalog.templatesResult.resourceTemplates.map((r) => r.uriTemplate), ['sensors://{line}/readings']);
    assert.deepEqual(catalog.capabilities, { resources: {}, completions: {} });
    assert.deepEqual(new ContentCatalog([resource('plant://a')], []).capabilities, { resources: {} });
    assert.deepEqual(new ContentCatalog([], [prompt('p')]).capabilities, { prompts: {}, completions: {} });
    assert.deepEqual(ContentCatalog.empty.capabilities, {});
  });

  it('registry: binds by path or Shared and refuses a URI or prompt declared twice for one endpoint', () => {
    const registry = new ContentRegistry();
    registry.registerResource('n1', resource('plant://a'));
    registry.registerResource('n2', resource('plant://a', { endpoint: '/other' }));
    assert.equal(paletteCode(() => registry.registerResource('n3', resource('plant://a', { endpoint: '*' }))), 'duplicate_resource');
    registry.registerPrompt('n4', prompt('p', { endpoint: '*' }));
    assert.equal(paletteCode(() => registry.registerPrompt('n5', prompt('p'))), 'duplicate_prompt');
    assert.equal(registry.catalogFor('/mcp').resourceCount, 1);
    assert.equal(registry.catalogFor('/other').promptCount, 1);
    assert.equal(registry.catalogFor('/none').resourceCount, 0);
    registry.unregister('n4');
    assert.equal(registry.catalogFor('/other').promptCount, 0);
  });
});

describe('completions', () => {
  it('filters by prefix ignoring case and caps at 100 with total and hasMore', () => {
    const many = Array.from({ length: 150 }, (_, index) => `line-${index}`);
    const result = completeFrom(many, 'LINE-');
    assert.equal(result.completion.values.length, 100);
    assert.equal(result.completion.total, 150);
    assert.equal(result.completion.hasMore, true);
    assert.deepEqual(completeFrom(['press-1', 'Press-2', 'oven'], 'pr').completion, { values: ['press-1', 'Press-2'], total: 2, hasMore: false });
    assert.deepEqual(completeFrom(undefined, '').completion, { values: [], total: 0, hasMore: false });
  });

  it('parses one line per known variable', () => {
    assert.deepEqual([...parseCompletionLines('line: a, b ,, a\n\n', ['line'])], [['line', ['a', 'b']]]);
  });
});

describe('flow answers', () => {
  it('turns text, Buffers and contents objects into resources/read contents', () => {
    assert.deepEqual(resourceResultFrom('hello', 'plant://a', 'text/plain', 1000), { contents: [{ uri: 'plant://a', mimeType: 'text/plain', text: 'hello' }] });
    assert.deepEqual(resourceResultFrom(Buffer.from([1, 2, 3]), 'plant://a', undefined, 1000), { contents: [{ uri: 'plant://a', blob: 'AQID' }] });
    assert.deepEqual(resourceResultFrom([{ text: '{}', mimeType: 'application/json', uri: 'plant://b' }], 'plant://a', 'text/plain', 1000), {
      contents: [{ uri: 'plant://b', mimeType: 'application/json', text: '{}' }],
    });
    assert.throws(() => resourceResultFrom([{ value: 1 }], 'plant://a', undefined, 1000), /neither text nor blob/);
    assert.throws(() => resourceResultFrom([], 'plant://a', undefined, 1000), /no contents/);
    assert.throws(() => resourceResultFrom('x'.repeat(11), 'plant://a', undefined, 10), /over the 10-byte limit/);
  });

  it('turns messages with string or block content into a prompts/get result', () => {
    const image = { type: 'image', data: 'AQID', mimeType: 'image/png' };
    assert.deepEqual(promptResultFrom([{ role: 'user', content: 'hi' }, { role: 'assistant', content: image }], 'd', 10_000), {
      description: 'd',
      messages: [
        { role: 'user', content: { type: 'text', text: 'hi' } },
        { role: 'assistant', content: image },
      ],
    });
    assert.throws(() => promptResultFrom([{ role: 'system', content: 'x' }], undefined, 10_000), /role/);
    assert.throws(() => promptResultFrom('x', undefined, 10_000), /no messages/);
  });
});
