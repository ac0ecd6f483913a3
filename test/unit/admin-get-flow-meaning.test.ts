// get_flow redacts by what a property means for Node-RED's core nodes, not only by its key name:
// header values, literals assigned to secret-named message properties, what a secret is compared
// with, JSON text typed into a field, and secret-named query parameters in URLs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, getFlowHarnessForSuite, type ConfigEntry } from '../support/flow-fixtures.js';
import { isPlainHeader, isSecretPath, redactUrlSecrets } from '../../lib/admin/redaction.js';

type Entry = Record<string, unknown>;

/** Values only redaction keeps out of answers; every one must be absent from every answer. */
const PLANTED = Object.freeze({
  keyTokens: 'planted-key-tokens-0b1c',
  keySecrets: 'planted-key-secrets-1d2e',
  keyPasswords: 'planted-key-passwords-2f30',
  keyApiKeys: 'planted-key-api-keys-3a41',
  keySecretValue: 'planted-key-secret-value-4b52',
  keyPasswordHash: 'planted-key-password-hash-5c63',
  keyDbPass: 'planted-key-db-pass-6d74',
  wsAuthorization: 'planted-ws-authorization-7e85',
  wsApiKey: 'planted-ws-api-key-8f96',
  wsQueryToken: 'planted-ws-query-token-90a7',
  httpAuthorization: 'planted-http-authorization-a1b8',
  httpCustomHeader: 'planted-http-custom-header-b2c9',
  httpPresetCookie: 'planted-http-preset-cookie-c3da',
  httpQueryKey: 'planted-http-query-key-d4eb',
  responseSetCookie: 'planted-response-set-cookie-e5fc',
  responseTenantKey: 'planted-response-tenant-key-f60d',
  injectPassword: 'planted-inject-password-071e',
  injectHeader: 'planted-inject-header-182f',
  injectJsonPayload: 'planted-inject-json-payload-2930',
  injectTopLevelJson: 'planted-inject-top-json-3a41',
  changeSet: 'planted-change-set-4b52',
  changeFrom: 'planted-change-from-5c63',
  changeHeaders: 'planted-change-headers-6d74',
  switchCompared: 'planted-switch-compared-7e85',
  switchBetween: 'planted-switch-between-8f96',
  brokenJson: 'planted-broken-json-90a7',
});
const P = PLANTED;
const TAB = 'tab-core';

/**
 * Core nodes in the shapes their editors save. Nodes without x/y are what Node-RED's flow API
 * lists as a tab's config entries, so `config` mode shows every one of their properties.
 */
function coreNodeFlows(): ConfigEntry[] {
  return [
    { id: TAB, type: 'tab', label: 'Core nodes', disabled: false, info: '' },
    {
      id: 'ws-client',
      type: 'websocket-client',
      path: `wss://socket.example.com/feed?token=${P.wsQueryToken}&room=lobby`,
      tls: '',
      wholemsg: 'false',
      hb: '0',
      subprotocol: 'chat',
      headers: [
        { keyType: 'Authorization', keyValue: '', valueType: 'other', valueValue: `Bearer ${P.wsAuthorization}` },
        { keyType: 'other', keyValue: 'X-Api-Key', valueType: 'other', valueValue: P.wsApiKey },
        { keyType: 'User-Agent', keyValue: '', valueType: 'other', valueValue: 'node-red-socket' },
        { keyType: 'other', keyValue: 'X-Tenant-Key', valueType: 'env', valueValue: 'TENANT_KEY' },
      ],
    },
    {
      id: 'keys-config',
      type: 'api-settings',
      tokens: [P.keyTokens],
      secrets: { main: P.keySecrets },
      passwords: [P.keyPasswords],
      apiKeys: [P.keyApiKeys],
      secretValue: P.keySecretValue,
      passwordHash: P.keyPasswordHash,
      dbPass: P.keyDbPass,
      tokenType: 'Bearer',
      maxTokens: 512,
      secretName: 'db-credentials',
      accessTokenTtl: 300,
      passwordEnv: 'MCP_DB_PASSWORD',
    },
    {
      id: 'req-headers',
      type: 'http request',
      z: TAB,
      name: 'Call with headers',
      method: 'GET',
      ret: 'obj',
      paytoqs: 'ignore',
      url: `https://api.example.com/v1/items?limit=5&api_key=${P.httpQueryKey}`,
      tls: '',
      persist: false,
      proxy: '',
      insecureHTTPParser: false,
      authType: '',
      senderr: false,
      headers: [
        { keyType: 'Authorization', keyValue: '', valueType: 'other', valueValue: `Basic ${P.httpAuthorization}` },
        { keyType: 'other', keyValue: 'X-Custom-Auth', valueType: 'other', valueValue: P.httpCustomHeader },
        { keyType: 'other', keyValue: 'Cookie', valueType: P.httpPresetCookie, valueValue: '' },
        { keyType: 'Content-Type', keyValue: '', valueType: 'application/json', valueValue: '' },
        { keyType: 'msg', keyValue: 'headerName', valueType: 'msg', valueValue: 'headerValue' },
      ],
    },
    {
      id: 'res-headers',
      type: 'http response',
      z: TAB,
      name: 'Answer',
      statusCode: '200',
      headers: { 'Set-Cookie': `sid=${P.responseSetCookie}`, 'X-Tenant-Key': P.responseTenantKey, 'content-type': 'application/json' },
    },
    {
      id: 'inject-secret',
      type: 'inject',
      z: TAB,
      name: 'Sign in',
      props: [
        { p: 'payload' },
        { p: 'password', v: P.injectPassword, vt: 'str' },
        { p: 'headers.x-api-key', v: P.injectHeader, vt: 'str' },
        { p: 'body', v: JSON.stringify({ user: 'ada', credentials: { apiKey: P.injectJsonPayload } }), vt: 'json' },
        { p: 'token', v: 'SIGN_IN_TOKEN', vt: 'env' },
        { p: 'topic', vt: 'str' },
      ],
      repeat: '',
      crontab: '',
      once: false,
      onceDelay: 0.1,
      topic: 'sign-in',
      payload: JSON.stringify({ user: 'ada', password: P.injectTopLevelJson }),
      payloadType: 'json',
      x: 100,
      y: 40,
      wires: [['switch-secret']],
    },
    {
      id: 'switch-secret',
      type: 'switch',
      z: TAB,
      name: 'Check the key',
      property: 'req.headers["x-api-key"]',
      propertyType: 'msg',
      rules: [
        { t: 'eq', v: P.switchCompared, vt: 'str' },
        { t: 'btwn', v: P.switchBetween, vt: 'str', v2: 'expected', v2t: 'msg' },
        { t: 'else' },
      ],
      checkall: 'true',
      repair: false,
      outputs: 3,
      x: 260,
      y: 40,
      wires: [[], [], []],
    },
    {
      id: 'switch-plain',
      type: 'switch',
      z: TAB,
      name: 'By topic',
      property: 'topic',
      propertyType: 'msg',
      rules: [{ t: 'eq', v: 'weather', vt: 'str' }],
      checkall: 'true',
      repair: false,
      outputs: 1,
      x: 260,
      y: 100,
      wires: [[]],
    },
    {
      id: 'change-secret',
      type: 'change',
      z: TAB,
      name: 'Set the key',
      rules: [
        { t: 'set', p: 'apiToken', pt: 'msg', to: P.changeSet, tot: 'str' },
        { t: 'change', p: 'auth.password', pt: 'msg', from: P.changeFrom, fromt: 'str', to: 'x', tot: 'str' },
        { t: 'set', p: 'headers', pt: 'msg', to: JSON.stringify({ Authorization: `Bearer ${P.changeHeaders}`, Accept: 'text/plain' }), tot: 'json' },
        { t: 'set', p: 'topic', pt: 'msg', to: 'done', tot: 'str' },
        { t: 'move', p: 'secret', pt: 'msg', to: 'payload.moved', tot: 'msg' },
        { t: 'set', p: 'payload', pt: 'msg', to: `{"password": "${P.brokenJson}"`, tot: 'json' },
      ],
    },
  ];
}

function findPlanted(text: string): string[] {
  return Object.entries(PLANTED)
    .filter(([, secret]) => text.includes(secret))
    .map(([name]) => name);
}

describe('get_flow redaction by meaning, on core node shapes', () => {
  const flow = getFlowHarnessForSuite(coreNodeFlows());

  it('is served every planted value by the admin API (so the scans below can catch a leak)', async () => {
    const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const raw = await Promise.all(['/flow/global', `/flow/${TAB}`].map(async (path) => (await fetch(`${flow.api.baseUrl}${path}`, { headers })).text()));
    assert.deepEqual(findPlanted(raw.join('\n')).sort(), Object.keys(PLANTED).sort());
  });

  it('lets no planted value out of any mode that shows settings', async () => {
    const calls: Entry[] = [
      { mode: 'config', configId: 'ws-client' },
      { mode: 'config', configId: 'keys-config' },
      { mode: 'config', id: TAB, configId: 'req-headers' },
      { mode: 'config', id: TAB, configId: 'res-headers' },
      { mode: 'config', id: TAB, configId: 'change-secret' },
      { mode: 'node', id: TAB, nodeId: 'inject-secret', includeConfig: true },
      { mode: 'node', id: TAB, nodeId: 'switch-secret', includeConfig: true },
      { mode: 'configs' },
      { mode: 'configs', id: TAB },
      { id: TAB },
    ];
    for (const args of calls) {
      const { text, result } = await flow.call(args);
      assert.equal(result.isError ?? false, false, `${JSON.stringify(args)}: ${text}`);
      assert.deepEqual(findPlanted(text), [], `${JSON.stringify(args)} leaked`);
    }
  });

  it('matches secret words anywhere in a key, plurals included, and keeps keys that only describe a secret', async () => {
    const { data } = await flow.call({ mode: 'config', configId: 'keys-config' });
    const properties = data.properties as Entry;
    for (const key of ['tokens', 'secrets', 'passwords', 'apiKeys', 'secretValue', 'passwordHash', 'dbPass']) {
      assert.equal(properties[key], '[REDACTED]', key);
    }
    assert.equal(properties.tokenType, 'Bearer');
    assert.equal(properties.maxTokens, 512);
    assert.equal(properties.secretName, 'db-credentials');
    assert.equal(properties.accessTokenTtl, 300);
    assert.equal(properties.passwordEnv, 'MCP_DB_PASSWORD');
  });

  it('hides websocket-client header values except plain headers and references, and secret query parameters', async () => {
    const { data } = await flow.call({ mode: 'config', configId: 'ws-client' });
    const properties = data.properties as Entry;
    assert.equal(properties.path, 'wss://socket.example.com/feed?token=[REDACTED]&room=lobby');
    assert.deepEqual(properties.headers, [
      { keyType: 'Authorization', keyValue: '', valueType: 'other', valueValue: '[REDACTED]' },
      { keyType: 'other', keyValue: 'X-Api-Key', valueType: 'other', valueValue: '[REDACTED]' },
      { keyType: 'User-Agent', keyValue: '', valueType: 'other', valueValue: 'node-red-socket' },
      { keyType: 'other', keyValue: 'X-Tenant-Key', valueType: 'env', valueValue: 'TENANT_KEY' },
    ]);
    assert.deepEqual([...(data.redactedProperties as string[])].sort(), ['properties.headers[0].valueValue', 'properties.headers[1].valueValue', 'properties.path'].sort());
  });

  it('hides http request header values, a preset value of a secret header, and keeps names and plain headers', async () => {
    const { data } = await flow.call({ mode: 'config', id: TAB, configId: 'req-headers' });
    const properties = data.properties as Entry;
    assert.equal(properties.url, 'https://api.example.com/v1/items?limit=5&api_key=[REDACTED]');
    assert.deepEqual(properties.headers, [
      { keyType: 'Authorization', keyValue: '', valueType: 'other', valueValue: '[REDACTED]' },
      { keyType: 'other', keyValue: 'X-Custom-Auth', valueType: 'other', valueValue: '[REDACTED]' },
      { keyType: 'other', keyValue: 'Cookie', valueType: '[REDACTED]', valueValue: '[REDACTED]' },
      { keyType: 'Content-Type', keyValue: '', valueType: 'application/json', valueValue: '' },
      { keyType: 'msg', keyValue: 'headerName', valueType: 'msg', valueValue: 'headerValue' },
    ]);
    assert.equal(properties.method, 'GET');
  });

  it('hides http response header values other than plain ones', async () => {
    const { data } = await flow.call({ mode: 'config', id: TAB, configId: 'res-headers' });
    assert.deepEqual((data.properties as Entry).headers, { 'Set-Cookie': '[REDACTED]', 'X-Tenant-Key': '[REDACTED]', 'content-type': 'application/json' });
  });

  it('hides what an inject sets on a secret-named property, and secrets inside JSON it sets', async () => {
    const { data } = await flow.call({ mode: 'node', id: TAB, nodeId: 'inject-secret', includeConfig: true });
    const config = data.config as Entry;
    assert.deepEqual(config.props, [
      { p: 'payload' },
      { p: 'password', v: '[REDACTED]', vt: 'str' },
      { p: 'headers.x-api-key', v: '[REDACTED]', vt: 'str' },
      { p: 'body', v: JSON.stringify({ user: 'ada', credentials: '[REDACTED]' }), vt: 'json' },
      { p: 'token', v: 'SIGN_IN_TOKEN', vt: 'env' },
      { p: 'topic', vt: 'str' },
    ]);
    assert.equal(config.payload, JSON.stringify({ user: 'ada', password: '[REDACTED]' }));
    assert.equal(config.topic, 'sign-in');
    assert.deepEqual(
      [...(data.configRedactedProperties as string[])].sort(),
      ['config.payload.password', 'config.props[1].v', 'config.props[2].v', 'config.props[3].v.credentials'].sort(),
    );
  });

  it('hides what a switch compares a secret-named property with, and nothing of an ordinary switch', async () => {
    const secret = await flow.call({ mode: 'node', id: TAB, nodeId: 'switch-secret', includeConfig: true });
    assert.deepEqual((secret.data.config as Entry).rules, [
      { t: 'eq', v: '[REDACTED]', vt: 'str' },
      { t: 'btwn', v: '[REDACTED]', vt: 'str', v2: 'expected', v2t: 'msg' },
      { t: 'else' },
    ]);
    const plain = await flow.call({ mode: 'node', id: TAB, nodeId: 'switch-plain', includeConfig: true });
    assert.deepEqual((plain.data.config as Entry).rules, [{ t: 'eq', v: 'weather', vt: 'str' }]);
    assert.deepEqual(plain.data.configRedactedProperties, []);
  });

  it('hides what a change node writes to secret-named properties and headers, and drops JSON it cannot read', async () => {
    const { data } = await flow.call({ mode: 'config', id: TAB, configId: 'change-secret' });
    assert.deepEqual((data.properties as Entry).rules, [
      { t: 'set', p: 'apiToken', pt: 'msg', to: '[REDACTED]', tot: 'str' },
      { t: 'change', p: 'auth.password', pt: 'msg', from: '[REDACTED]', fromt: 'str', to: '[REDACTED]', tot: 'str' },
      { t: 'set', p: 'headers', pt: 'msg', to: JSON.stringify({ Authorization: '[REDACTED]', Accept: 'text/plain' }), tot: 'json' },
      { t: 'set', p: 'topic', pt: 'msg', to: 'done', tot: 'str' },
      { t: 'move', p: 'secret', pt: 'msg', to: 'payload.moved', tot: 'msg' },
      { t: 'set', p: 'payload', pt: 'msg', tot: 'json' },
    ]);
    assert.deepEqual(data.omittedProperties, ['properties.rules[5].to']);
  });
});

describe('isSecretPath', () => {
  it('finds a secret-named part or a non-plain header anywhere in a message property path', () => {
    for (const path of ['password', 'auth.token', 'req.headers.authorization', 'req.headers["x-api-key"]', 'headers.X-Tenant', 'payload.apiKeys[0]', "cookies['sid']"]) {
      assert.equal(isSecretPath(path), true, path);
    }
    for (const path of ['payload', 'topic', 'req.headers.accept', 'headers.Content-Type', 'payload.maxTokens', 'tokenType']) {
      assert.equal(isSecretPath(path), false, path);
    }
  });
});

describe('isPlainHeader', () => {
  it('shows only standard headers that never carry a credential', () => {
    for (const name of ['Accept', 'content-type', 'User-Agent', ' Cache-Control ']) assert.equal(isPlainHeader(name), true, name);
    for (const name of ['Authorization', 'Proxy-Authorization', 'Cookie', 'Set-Cookie', 'X-Api-Key', 'X-Auth', 'Ocp-Apim-Subscription-Key', 'Location']) {
      assert.equal(isPlainHeader(name), false, name);
    }
  });
});

describe('redactUrlSecrets', () => {
  it('hides user information and secret-named query parameters, nothing else', () => {
    assert.equal(redactUrlSecrets('https://u:p@h/x?access_token=abc&page=2#top'), 'https://[REDACTED]@h/x?access_token=[REDACTED]&page=2#top');
    assert.equal(redactUrlSecrets('wss://h/?apiKey=k1&api%5Fkey=k2'), 'wss://h/?apiKey=[REDACTED]&api%5Fkey=[REDACTED]');
    for (const text of ['https://h/x?page=2&sort=name', 'https://h/?token=', 'a=b', 'https://h/?tokenType=bearer']) {
      assert.equal(redactUrlSecrets(text), text);
    }
  });
});
