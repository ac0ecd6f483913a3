// The mcp-resource and mcp-prompt dialogs in the real Node-RED editor (packed palette, headless
// Chromium): the plant-status example loads valid, the field checks refuse what the runtime refuses,
// and the prompt's argument and message lists survive a dialog round trip.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchEditorBrowser, openEditor, type EditorBrowser } from '../support/browser.js';
import { plantStatusFlow } from '../support/flows.js';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';

declare const RED: any;
declare const $: any;

const PROMPT = '7b2c0e1d4a5f6009';
const WAIT = { timeout: 30_000 };
const skip = chromiumMissing();

describe('Node-RED editor with the plant-status example', () => {
  let nodeRed: NodeRedProcess | undefined;
  let session: EditorBrowser | undefined;
  const example = plantStatusFlow(0).filter((node) => node.type.startsWith('mcp-') && node.type !== 'mcp-runtime');

  before(async () => {
    if (skip) return;
    nodeRed = await startNodeRed(plantStatusFlow(await freePort()));
    session = await launchEditorBrowser();
    await openEditor(session.page, nodeRed.adminUrl, { nodeId: PROMPT, paletteType: 'mcp-prompt' });
  });

  after(async () => {
    await session?.close();
    await nodeRed?.stop();
  });

  it('shows the example resources and prompt without validation errors, with their help', { skip }, async () => {
    const states = await session!.page.evaluate(
      (ids: string[]) => ids.map((id) => ({ id, valid: RED.nodes.node(id)?.valid, errors: RED.nodes.node(id)?.validationErrors ?? [] })),
      example.map((node) => node.id),
    );
    assert.equal(states.length, 5);
    for (const state of states) assert.equal(state.valid, true, `${state.id}: ${JSON.stringify(state.errors)}`);
    const help = await session!.page.evaluate(() =>
      ['mcp-resource', 'mcp-prompt'].map((type) => (document.querySelector(`script[data-help-name="${type}"]`)?.textContent ?? '').includes('mcp-')),
    );
    assert.deepEqual(help, [true, true]);
  });

  it('refuses bad URIs and templates, MIME types and duplicate argument names with the runtime reason', { skip }, async () => {
    const results = await session!.page.evaluate(() => {
      const resource = RED.nodes.getType('mcp-resource').defaults;
      const prompt = RED.nodes.getType('mcp-prompt').defaults;
      const check = (field: any, value: unknown, self: object = {}) => field.validate.call(self, value, {});
      return {
        fixed: check(resource.uri, 'plant://line-1/status'),
        template: check(resource.uri, 'sensors://{line}/readings'),
        unclosed: check(resource.uri, 'sensors://{line'),
        operator: check(resource.uri, 'sensors://{+path}'),
        noScheme: check(resource.uri, 'line-1/status'),
        mime: check(resource.mimeType, 'application/json'),
        badMime: check(resource.mimeType, 'json'),
        completions: check(resource.completions, 'line: a, b', { uri: 'sensors://{line}/readings' }),
        badCompletions: check(resource.completions, 'machine: a', { uri: 'sensors://{line}/readings' }),
        flowCompletions: check(resource.flowCompletions, 'line', { uri: 'sensors://{line}/{day}', completions: 'day: mon' }),
        flowAndList: check(resource.flowCompletions, 'day', { uri: 'sensors://{line}/{day}', completions: 'day: mon' }),
        flowUnknown: check(resource.flowCompletions, 'shift', { uri: 'sensors://{line}/{day}' }),
        size: check(resource.size, '2048'),
        badSize: check(resource.size, '2 KB'),
        priority: check(resource.priority, '0.5'),
        badPriority: check(resource.priority, '2'),
        arguments: check(prompt.arguments, [{ name: 'a' }, { name: 'b' }]),
        duplicate: check(prompt.arguments, [{ name: 'a' }, { name: 'a' }]),
      };
    });
    assert.equal(results.fixed, true);
    assert.equal(results.template, true);
    assert.equal(results.unclosed, 'URI sensors://{line: has a "{" without its "}"');
    assert.match(results.operator, /variable \{\+path\} must be a simple name/);
    assert.match(results.noScheme, /must be an absolute URI/);
    assert.equal(results.mime, true);
    assert.equal(results.badMime, 'MIME type json is not of the form type/subtype');
    assert.equal(results.completions, true);
    assert.match(results.badCompletions, /Completions line 1/);
    assert.equal(results.flowCompletions, true);
    assert.equal(results.flowAndList, 'Flow completes: day is not a variable of the template, or it already has a list under Completions');
    assert.match(results.flowUnknown, /Flow completes: shift is not a variable/);
    assert.equal(results.size, true);
    assert.equal(results.badSize, 'Size 2 KB must be a whole number of bytes');
    assert.equal(results.priority, true);
    assert.equal(results.badPriority, 'Priority 2 must be a number from 0 to 1');
    assert.equal(results.arguments, true);
    assert.equal(results.duplicate, 'Argument a is declared twice');
  });

  it('keeps the prompt arguments and messages through the dialog; a duplicate argument makes the node invalid', { skip }, async () => {
    const p = session!.page;
    await p.evaluate((id: string) => RED.editor.edit(RED.nodes.node(id)), PROMPT);
    await p.locator('#node-input-arguments-list .mcp-argument-name').first().waitFor({ state: 'visible', ...WAIT });
    assert.deepEqual(await p.locator('#node-input-arguments-list .mcp-argument-name').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value)), ['machine', 'period']);
    assert.equal(await p.locator('#node-input-messages-list .mcp-message-text').count(), 1);
    // Rename the second argument to the first one's name, then save.
    await p.locator('#node-input-arguments-list .mcp-argument-name').nth(1).fill('machine');
    await p.locator('#node-dialog-ok').click(WAIT);
    await p.waitForFunction(() => !$('#node-dialog-ok').is(':visible'), undefined, WAIT).catch(async (error) => {
      throw new Error(`${error}; state: ${await p.evaluate((id: string) => JSON.stringify({ ok: $('#node-dialog-ok').length, valid: RED.nodes.node(id).valid, args: RED.nodes.node(id).arguments }), PROMPT)}`);
    });
    const node = await p.evaluate((id: string) => {
      const n = RED.nodes.node(id);
      // As the editor re-checks every node before a deploy.
      RED.editor.validateNode(n);
      return { arguments: n.arguments, messages: n.messages, valid: n.valid, errors: n.validationErrors ?? [] };
    }, PROMPT);
    // The example completes machine from the flow; the other argument keeps its (empty) list.
    assert.deepEqual(node.arguments.map((a: { name: string; required: boolean; completion: string; values: string }) => [a.name, a.required, a.completion, a.values]), [
      ['machine', true, 'flow', ''],
      ['machine', false, 'list', ''],
    ]);
    assert.equal(node.messages[0].role, 'user');
    assert.match(node.messages[0].text, /\{\{machine\}\}/);
    assert.equal(node.valid, false, JSON.stringify(node.errors));
  });
});
