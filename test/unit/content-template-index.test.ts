import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { parseResourceConfig, type ResourceDefinition } from '../../lib/mcp/content/resource-definition.js';
import type { UriTemplate } from '../../lib/mcp/content/uri-template.js';

// Reading a URI that only a template matches: the answer is the first template in URI order that
// matches (as trying each in turn gives), and the templates tried do not grow with their number.

/** The resource with its template's matching counted (a spy around the real template). */
function counted(uri: string, tries: { count: number }): ResourceDefinition {
  const real = parseResourceConfig({ resourceName: uri.replace(/\W+/g, '-'), uri, endpoint: '/mcp' });
  const template = real.template!;
  const spy: UriTemplate = {
    text: template.text,
    variables: template.variables,
    match: (candidate) => {
      tries.count += 1;
      return template.match(candidate);
    },
  };
  return { ...real, template: spy };
}

describe('template resources', () => {
  it('500 templates: a read tries only the templates its URI starts like, not all of them', () => {
    const tries = { count: 0 };
    const templates = Array.from({ length: 500 }, (_, i) => counted(`bench://t${i}/{id}`, tries));
    const catalog = new ContentCatalog(templates, []);
    for (const i of [0, 7, 250, 499]) {
      tries.count = 0;
      const found = catalog.findResource(`bench://t${i}/abc`);
      assert.equal(found?.resource.uri, `bench://t${i}/{id}`);
      assert.deepEqual(found?.variables, { id: 'abc' });
      // bench://t4/… is also where bench://t49/… starts; at most the templates along the URI's start are tried.
      assert.ok(tries.count <= 3, `tried ${tries.count} templates for t${i}`);
    }
    tries.count = 0;
    assert.equal(catalog.findResource('other://t1/abc'), undefined);
    assert.equal(tries.count, 0, 'a URI no template starts like tries none');
  });

  it('the first template in URI order that matches wins, whatever their literal starts', () => {
    const tries = { count: 0 };
    const catalog = new ContentCatalog(
      [counted('a://{x}/b', tries), counted('a://x/{y}', tries), counted('a://{x}', tries), counted('z://{x}/{y}', tries), counted('a://x/{y}/c', tries)],
      [],
    );
    // 'a://x/{y}' sorts before 'a://{x}/b' ('x' < '{'): both match a://x/b, the first in URI order wins.
    assert.equal(catalog.findResource('a://x/b')?.resource.uri, 'a://x/{y}');
    assert.equal(catalog.findResource('a://q/b')?.resource.uri, 'a://{x}/b');
    assert.equal(catalog.findResource('a://q')?.resource.uri, 'a://{x}');
    assert.equal(catalog.findResource('a://x/y/c')?.resource.uri, 'a://x/{y}/c');
    assert.deepEqual(catalog.findResource('z://1/2')?.variables, { x: '1', y: '2' });
    assert.equal(catalog.findResource('a://x/../c'), undefined);
  });

  it('a fixed URI wins over a template that matches it too', () => {
    const catalog = new ContentCatalog([parseResourceConfig({ resourceName: 't', uri: 'a://{x}', endpoint: '/mcp' }), parseResourceConfig({ resourceName: 'f', uri: 'a://fixed', endpoint: '/mcp' })], []);
    assert.equal(catalog.findResource('a://fixed')?.resource.uri, 'a://fixed');
    assert.equal(catalog.findResource('a://other')?.resource.uri, 'a://{x}');
  });
});
