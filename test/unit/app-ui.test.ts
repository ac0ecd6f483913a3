import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { APP_VIEW_MIME_TYPE, checkCspOrigin, checkViewUri, clientShowsViews, parseAppViewMeta, parseToolViewMeta, UI_EXTENSION } from '../../lib/mcp/app-ui.js';
import { parseAppViewConfig } from '../../lib/mcp/content/app-view.js';
import { appViewResult, resourceResultFrom } from '../../lib/mcp/content/content-answers.js';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { capabilitiesFor } from '../../lib/mcp/server-capabilities.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';
import { paletteCode } from '../support/palette-errors.js';

const view = (extra: Record<string, unknown> = {}) =>
  parseAppViewConfig({ resourceName: 'chart', uri: 'ui://plant/chart', endpoint: '/mcp', source: 'static', text: '<!DOCTYPE html><p>hi</p>', ...extra });

describe('MCP Apps view metadata (_meta.ui)', () => {
  it('accepts origins of the web, with *. for subdomains and an optional port', () => {
    for (const origin of ['https://api.example.com', 'wss://live.example.com:8443', 'https://*.example.com', 'http://localhost:1880', 'ws://127.0.0.1']) {
      assert.equal(checkCspOrigin(origin), undefined, origin);
    }
  });

  it('refuses anything that could widen a policy built from it: keywords, paths, separators, other schemes', () => {
    for (const value of ["'unsafe-eval'", '*', 'https://*', 'data:', 'https://a.com/path', 'https://a.com;script-src *', 'https://a.com,https://b.com', 'javascript://x', 'https://a.com ', 'example.com', 'https://a..com', 'https://*.*.com']) {
      assert.ok(checkCspOrigin(value), value);
    }
  });

  it('keeps exactly what the editor set, and nothing for what it left empty', () => {
    assert.deepEqual(parseAppViewMeta({}), {});
    const meta = parseAppViewMeta({
      connectDomains: 'https://api.example.com\nwss://live.example.com',
      resourceDomains: 'https://cdn.example.com, https://cdn.example.com',
      frameDomains: '',
      baseUriDomains: ['https://base.example.com'],
      camera: true,
      microphone: false,
      clipboardWrite: 'true',
      prefersBorder: 'false',
      domain: 'a904794854a047f6.claudemcpcontent.com',
    });
    assert.deepEqual(JSON.parse(JSON.stringify(meta)), {
      csp: {
        connectDomains: ['https://api.example.com', 'wss://live.example.com'],
        resourceDomains: ['https://cdn.example.com'],
        baseUriDomains: ['https://base.example.com'],
      },
      permissions: { camera: {}, clipboardWrite: {} },
      domain: 'a904794854a047f6.claudemcpcontent.com',
      prefersBorder: false,
    });
    assert.deepEqual(parseAppViewMeta({ prefersBorder: true }), { prefersBorder: true });
  });

  it('refuses a bad origin, too many origins, a bad border or domain, naming the field', () => {
    const refusal = (config: Record<string, unknown>) => {
      try {
        parseAppViewMeta(config);
      } catch (error) {
        return (error as { code: string; params: Record<string, unknown> }).params['field'] + ':' + (error as { code: string }).code;
      }
      return 'accepted';
    };
    assert.equal(refusal({ connectDomains: "https://ok.example.com 'self'" }), 'connectDomains:invalid_app_view_meta');
    assert.equal(refusal({ frameDomains: Array.from({ length: 33 }, (_, i) => `https://h${i}.example.com`).join(' ') }), 'frameDomains:invalid_app_view_meta');
    assert.equal(refusal({ prefersBorder: 'maybe' }), 'prefersBorder:invalid_app_view_meta');
    assert.equal(refusal({ domain: 'https://evil.example.com/path' }), 'domain:invalid_app_view_meta');
    assert.equal(refusal({ domain: 'https://www-example-com.oaiusercontent.com' }), 'accepted');
  });

  it('requires a fixed ui:// URI', () => {
    assert.equal(checkViewUri('ui://plant/chart'), undefined);
    for (const uri of ['', 'ui://', 'plant://chart', 'ui://plant/{line}', 'ui://has space', 'UI://x']) assert.ok(checkViewUri(uri), uri);
  });
});

describe('an app view as a resource', () => {
  it('is served as text/html;profile=mcp-app with _meta.ui in its listing and its contents', () => {
    const definition = view({ title: 'Chart', connectDomains: 'https://api.example.com', prefersBorder: 'true' });
    assert.equal(definition.mimeType, APP_VIEW_MIME_TYPE);
    assert.equal(definition.staticText, '<!DOCTYPE html><p>hi</p>');
    const ui = { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true };
    assert.deepEqual(JSON.parse(JSON.stringify(definition.listing)), { uri: 'ui://plant/chart', name: 'chart', title: 'Chart', mimeType: APP_VIEW_MIME_TYPE, _meta: { ui } });
    assert.deepEqual(JSON.parse(JSON.stringify(definition.appMeta)), { ui });
  });

  it('refuses a URI that is not ui://, a template, and static HTML over the read limit', () => {
    assert.equal(paletteCode(() => view({ uri: 'plant://chart' })), 'invalid_uri');
    assert.equal(paletteCode(() => view({ uri: 'ui://plant/{line}' })), 'invalid_uri');
    assert.equal(paletteCode(() => view({ text: 'x'.repeat(1024 * 1024 + 1) })), 'app_view_too_large');
    assert.doesNotThrow(() => view({ source: 'flow', text: 'x'.repeat(1024 * 1024 + 1) }));
  });

  it("sends a flow's HTML with the node's _meta.ui only, and refuses another type, URI or several documents", () => {
    const definition = view({ source: 'flow', connectDomains: 'https://api.example.com' });
    const meta = definition.appMeta!;
    const answered = (contents: unknown) => appViewResult(resourceResultFrom(contents, 'ui://plant/chart', definition.mimeType, 1024 * 1024), 'ui://plant/chart', meta);
    const wider = { text: '<p>x</p>', _meta: { ui: { csp: { connectDomains: ['https://evil.example.com'] } } } };
    assert.deepEqual(JSON.parse(JSON.stringify(answered(wider))), {
      contents: [{ uri: 'ui://plant/chart', mimeType: APP_VIEW_MIME_TYPE, text: '<p>x</p>', _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] } } } }],
    });
    assert.throws(() => answered({ text: '<p>x</p>', mimeType: 'text/html' }), /text\/html;profile=mcp-app, not text\/html/);
    assert.throws(() => answered({ text: '<p>x</p>', uri: 'ui://other' }), /its own URI/);
    assert.throws(() => answered(['<p>a</p>', '<p>b</p>']), /one HTML document/);
  });
});

describe('a tool that names a view', () => {
  const tool = (extra: Record<string, unknown>) => parseToolConfig({ toolName: 'chart', endpoint: '/mcp', inputSchema: '{"type":"object"}', ...extra });

  it('lists _meta.ui (and the flat key the extension still lists) only when set', () => {
    assert.equal(tool({}).listing._meta, undefined);
    assert.equal(tool({}).showsView, undefined);
    assert.deepEqual(tool({ appView: 'ui://plant/chart' }).listing._meta, { ui: { resourceUri: 'ui://plant/chart' }, 'ui/resourceUri': 'ui://plant/chart' });
    assert.equal(tool({ appView: 'ui://plant/chart' }).showsView, true);
    assert.deepEqual(tool({ appView: 'ui://plant/chart', visibility: 'app' }).listing._meta, { ui: { resourceUri: 'ui://plant/chart', visibility: ['app'] }, 'ui/resourceUri': 'ui://plant/chart' });
    assert.deepEqual(tool({ visibility: 'both' }).listing._meta, { ui: { visibility: ['model', 'app'] } });
    assert.deepEqual(parseToolViewMeta({ visibility: 'model' }), { ui: { visibility: ['model'] } });
  });

  it('refuses a view URI that is not ui:// and an unknown visibility', () => {
    assert.equal(paletteCode(() => tool({ appView: 'https://example.com/view.html' })), 'invalid_app_view');
    assert.equal(paletteCode(() => tool({ visibility: 'everyone' })), 'invalid_visibility');
  });
});

describe('negotiating the extension', () => {
  it('reads whether a client shows views from its declared extension settings', () => {
    assert.equal(clientShowsViews(undefined), undefined);
    assert.equal(clientShowsViews({}), false);
    assert.equal(clientShowsViews({ extensions: { [UI_EXTENSION]: {} } }), false);
    assert.equal(clientShowsViews({ extensions: { [UI_EXTENSION]: { mimeTypes: ['text/html'] } } }), false);
    assert.equal(clientShowsViews({ extensions: { [UI_EXTENSION]: { mimeTypes: [APP_VIEW_MIME_TYPE] } } }), true);
  });

  it('declares the extension in both eras only on an endpoint with a view', () => {
    const plain = new ContentCatalog([parseResourceConfig({ resourceName: 'r', uri: 'plant://x', endpoint: '/mcp' })], []);
    const withView = new ContentCatalog([view()], []);
    for (const modern of [false, true]) {
      assert.equal(capabilitiesFor(plain, modern).extensions, undefined);
      assert.deepEqual(capabilitiesFor(withView, modern).extensions, { [UI_EXTENSION]: {} });
      assert.ok(capabilitiesFor(withView, modern).resources);
    }
    assert.notEqual(plain.capabilityKey, withView.capabilityKey);
  });
});
