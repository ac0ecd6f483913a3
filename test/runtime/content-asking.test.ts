// Prompts and resources whose flows ask the client (mcp-prompt-input, mcp-resource-input), through real
// Node-RED and the official MCP client. The prompt's flow is the example of docs/resources-prompts.md,
// verbatim: that page documents this contract, and this test (like the conformance fixture) runs what it says.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { answer, flowServer, prompt, resource, runtime, tab, topicSwitch } from '../support/flows.js';
import { JSON_HEADERS, rawRequest, type Era, type RawResponse } from '../support/mcp-http.js';
import { nodeRedPackage, type NodeRedProcess } from '../support/node-red-process.js';
import { startServing } from '../support/serving.js';
import { docExample } from '../support/doc-examples.js';

/** Logs what each request of the prompt's flow carried, then runs the docs' example. */
const PROMPT_FLOW = `const p = msg.payload;
node.warn('prompt-get ' + p.executionId + ' round=' + (p.inputRound || 0) + ' topic=' + p.arguments.topic + ' answers=' + (p.inputResponses ? Object.keys(p.inputResponses).join(',') : 'none') + ' unasked=' + (p.unaskedResponses ? Object.keys(p.unaskedResponses).join(',') : 'none'));
${docExample('prompt-that-asks')}`;

/** A template resource whose flow asks the reader to confirm before it hands out the note. */
const RESOURCE_FLOW = `const { executionId, uri, variables, inputResponses, inputError } = msg.payload;
node.warn('resource-read ' + executionId + ' uri=' + uri + ' round=' + (msg.payload.inputRound || 0));
const respond = (payload) => ({ topic: 'mcp-resource-response', payload: { executionId, ...payload } });
if (inputError) return respond({ error: inputError.message });
const reply = inputResponses && inputResponses.confirm;
if (!reply) return { topic: 'mcp-resource-input', payload: { executionId, state: { note: variables.name }, requests: {
  confirm: { elicitation: { message: 'Show note ' + variables.name + '?', requestedSchema: { type: 'object', properties: { show: { type: 'boolean' } }, required: ['show'] } } } } } };
if (reply.action !== 'accept' || !reply.content.show) return respond({ error: 'Not shown.' });
return respond({ contents: 'Note ' + msg.payload.state.note + ': hello' });`;

function contentFlows(port: number) {
  return [
    tab(),
    runtime('rt', port),
    flowServer('fs', { runtime: 'rt', path: '/content', wires: ['by-topic'] }),
    topicSwitch('by-topic', { 'mcp-prompt-get': 'prompt-flow', 'mcp-resource-read': 'resource-flow' }),
    answer('prompt-flow', PROMPT_FLOW, 'fs'),
    answer('resource-flow', RESOURCE_FLOW, 'fs'),
    prompt('p-context', { name: 'context_prompt', endpoint: '/content', source: 'flow', arguments: [{ name: 'topic', description: 'What the prompt is about', required: false }] }),
    resource('r-note', { uri: 'notes://{name}', endpoint: '/content' }),
  ];
}

const CAPABILITIES = { elicitation: { form: {} } };
const CONTEXT = { action: 'accept', content: { context: 'the plant in Oslo' } };

/** A raw 2026-07-28 request of `method` (prompts/get or resources/read), with the envelope a client sends. */
function modern(url: string, method: 'prompts/get' | 'resources/read', params: Record<string, unknown>, id = 1): Promise<RawResponse> {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': CAPABILITIES,
  };
  const name = String(method === 'prompts/get' ? params['name'] : params['uri']);
  return rawRequest(url, {
    headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } }),
  });
}

async function userClient(url: string, era: Era, reply: unknown): Promise<Client> {
  const client = new Client({ name: 'content-asking', version: '1.0.0' }, { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : 'auto' }, capabilities: CAPABILITIES });
  client.setRequestHandler('elicitation/create', async () => reply as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe(`prompts and resources that ask the client (${nodeRedPackage})`, () => {
  let nodeRed: NodeRedProcess;
  let url: string;

  before(async () => {
    ({ nodeRed, url } = await startServing(contentFlows, '/content'));
  });
  after(() => nodeRed?.stop());

  /**
   * The prompt-get lines the flow logged since `since` for the topics a test uses: an earlier test's
   * last line (its flow logs after its client has its answer) may still arrive after `since`.
   */
  const promptRounds = (since: number, ...topics: string[]) =>
    [...nodeRed.output().slice(since).matchAll(/prompt-get \S+ round=(\d+) topic=(\S+) answers=(\S+) unasked=(\S+)/g)]
      .filter((match) => topics.includes(match[2]!))
      .map((match) => match.slice(1).join(' '));

  it("the docs' prompt example asks a 2026-07-28 client for its context and answers with it", async () => {
    const client = await userClient(url, 'modern', CONTEXT);
    try {
      const result = await client.getPrompt({ name: 'context_prompt', arguments: { topic: 'plant' } });
      assert.deepEqual(result.messages, [{ role: 'user', content: { type: 'text', text: 'Use this context: the plant in Oslo' } }]);
    } finally {
      await client.close();
    }
  });

  it('the same example tells a 2025-era client it cannot ask (its flow gets inputError)', async () => {
    const client = await userClient(url, 'legacy', CONTEXT);
    try {
      await assert.rejects(client.getPrompt({ name: 'context_prompt', arguments: { topic: 'plant' } }), (error: Error & { code?: number }) => {
        assert.equal(error.code, -32603);
        assert.match(error.message, /Cannot ask for the context: .*only tool calls have a stream to ask on/);
        return true;
      });
    } finally {
      await client.close();
    }
  });

  it('refuses a retry with other prompt arguments (-32602), and the flow never sees it', async () => {
    const since = nodeRed.output().length;
    const first = (await modern(url, 'prompts/get', { name: 'context_prompt', arguments: { topic: 'safe' } })).json().result;
    assert.equal(first.resultType, 'input_required');
    const swapped = await modern(url, 'prompts/get', { name: 'context_prompt', arguments: { topic: 'dangerous' }, inputResponses: { user_context: CONTEXT }, requestState: first.requestState }, 2);
    assert.equal(swapped.json().error?.code, -32602, swapped.body);
    assert.match(swapped.json().error.message, /belongs to a call with other arguments/);
    const honest = (await modern(url, 'prompts/get', { name: 'context_prompt', arguments: { topic: 'safe' }, inputResponses: { user_context: CONTEXT }, requestState: first.requestState }, 3)).json().result;
    assert.equal(honest.messages?.[0]?.content?.text, 'Use this context: the plant in Oslo');
    await nodeRed.waitForOutput(/prompt-get \S+ round=1 topic=safe/, since);
    assert.deepEqual(promptRounds(since, 'safe', 'dangerous'), ['0 safe none none', '1 safe user_context none']);
  });

  it('refuses a replayed prompt state (-32602): the round ran once', async () => {
    const since = nodeRed.output().length;
    const first = (await modern(url, 'prompts/get', { name: 'context_prompt', arguments: { topic: 'once' } })).json().result;
    const retry = { name: 'context_prompt', arguments: { topic: 'once' }, inputResponses: { user_context: CONTEXT }, requestState: first.requestState };
    assert.ok((await modern(url, 'prompts/get', retry, 2)).json().result?.messages);
    const replayed = await modern(url, 'prompts/get', retry, 3);
    assert.equal(replayed.json().error?.code, -32602, replayed.body);
    assert.match(replayed.json().error.message, /has been used already/);
    await nodeRed.waitForOutput(/prompt-get \S+ round=1 topic=once/, since);
    assert.deepEqual(promptRounds(since, 'once'), ['0 once none none', '1 once user_context none']);
  });

  it('refuses an answer that does not fit the form (-32602 naming its key), and the fixed retry works', async () => {
    const since = nodeRed.output().length;
    const first = (await modern(url, 'prompts/get', { name: 'context_prompt', arguments: { topic: 'checked' } })).json().result;
    const retry = (user_context: unknown, id: number) => modern(url, 'prompts/get', { name: 'context_prompt', arguments: { topic: 'checked' }, inputResponses: { user_context }, requestState: first.requestState }, id);
    for (const [index, bad] of [{ action: 'bogus', content: { context: 'x' } }, { action: 'accept', content: { context: 'x', extra: '<img src=x>' } }, { action: 'accept', content: { context: 42 } }].entries()) {
      const refused = (await retry(bad, 10 + index)).json().error;
      assert.equal(refused?.code, -32602, JSON.stringify(bad));
      assert.match(refused.message, /^Invalid inputResponses\.user_context: /);
    }
    assert.ok((await retry(CONTEXT, 20)).json().result?.messages);
    await nodeRed.waitForOutput(/prompt-get \S+ round=1 topic=checked/, since);
    assert.deepEqual(promptRounds(since, 'checked'), ['0 checked none none', '1 checked user_context none']);
  });

  it('hands answers sent unasked to the flow apart (unaskedResponses), so the example in the docs still asks', async () => {
    const since = nodeRed.output().length;
    const upFront = (await modern(url, 'prompts/get', { name: 'context_prompt', arguments: { topic: 'eager' }, inputResponses: { user_context: CONTEXT } })).json().result;
    assert.equal(upFront.resultType, 'input_required', JSON.stringify(upFront));
    await nodeRed.waitForOutput(/prompt-get \S+ round=0 topic=eager/, since);
    assert.deepEqual(promptRounds(since, 'eager'), ['0 eager none user_context']);
  });

  it('binds a resource state to the URI read and uses it once', async () => {
    const since = nodeRed.output().length;
    const first = (await modern(url, 'resources/read', { uri: 'notes://alpha' })).json().result;
    assert.equal(first.resultType, 'input_required');
    assert.deepEqual(Object.keys(first.inputRequests), ['confirm']);
    const yes = { confirm: { action: 'accept', content: { show: true } } };
    const elsewhere = await modern(url, 'resources/read', { uri: 'notes://beta', inputResponses: yes, requestState: first.requestState }, 2);
    assert.equal(elsewhere.json().error?.code, -32602, elsewhere.body);
    const read = (await modern(url, 'resources/read', { uri: 'notes://alpha', inputResponses: yes, requestState: first.requestState }, 3)).json().result;
    assert.equal(read.contents?.[0]?.text, 'Note alpha: hello');
    const replayed = await modern(url, 'resources/read', { uri: 'notes://alpha', inputResponses: yes, requestState: first.requestState }, 4);
    assert.match(replayed.json().error?.message ?? '', /has been used already/);
    await nodeRed.waitForOutput(/resource-read \S+ uri=notes:\/\/alpha round=1/, since);
    const rounds = [...nodeRed.output().slice(since).matchAll(/resource-read \S+ uri=(\S+) round=(\d+)/g)].map((match) => `${match[1]} ${match[2]}`);
    assert.deepEqual(rounds, ['notes://alpha 0', 'notes://alpha 1']);
  });
});
