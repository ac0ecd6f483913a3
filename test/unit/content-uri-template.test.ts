import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isFixedUri, parseUriTemplate } from '../../lib/mcp/content/uri-template.js';

describe('URI templates (RFC 6570 level 1)', () => {
  it('matches a URI and returns each variable percent-decoded', () => {
    const template = parseUriTemplate('sensors://{line}/readings/{hours}h');
    assert.deepEqual(template.variables, ['line', 'hours']);
    assert.deepEqual(template.match('sensors://line-1/readings/24h'), { line: 'line-1', hours: '24' });
    assert.deepEqual(template.match('sensors://line%201/readings/6h'), { line: 'line 1', hours: '6' });
  });

  it('does not match across a path segment, a query or a different literal', () => {
    const template = parseUriTemplate('sensors://{line}/readings');
    assert.equal(template.match('sensors://a/b/readings'), undefined);
    assert.equal(template.match('sensors://a/readings?x=1'), undefined);
    assert.equal(template.match('sensors://a/reading'), undefined);
    assert.equal(template.match('sensors:///readings'), undefined);
    assert.equal(template.match('sensors://%E0%A4%A/readings'), undefined, 'malformed percent-encoding');
  });

  it('refuses a value that decodes to more than one segment: a slash, a dot segment or a control character', () => {
    // A flow that builds a file path from {name} must never see "../../etc/passwd": the read is
    // refused as an unknown URI, exactly as one no template matches.
    const template = parseUriTemplate('file://docs/{name}');
    const refused = [
      'file://docs/..%2F..%2Fetc%2Fpasswd',
      'file://docs/a%2Fb',
      'file://docs/a%5Cb',
      'file://docs/..',
      'file://docs/.',
      'file://docs/%2e%2e',
      'file://docs/%2E',
      'file://docs/report%00.txt',
      'file://docs/line%0Abreak',
      'file://docs/%1B%5B31m',
      'file://docs/tab%09',
      'file://docs/del%7F',
      'file://docs/c1%C2%85',
      'file://docs/c1%C2%9B',
      'file://docs/%zz',
      'file://docs/%E0%A4%A',
      'file://docs/%',
    ];
    for (const uri of refused) assert.equal(template.match(uri), undefined, uri);
  });

  it('still decodes one-segment values: spaces, dots inside a name, non-ASCII letters', () => {
    const template = parseUriTemplate('file://docs/{name}');
    assert.deepEqual(template.match('file://docs/annual%20report.pdf'), { name: 'annual report.pdf' });
    assert.deepEqual(template.match('file://docs/..hidden'), { name: '..hidden' });
    assert.deepEqual(template.match('file://docs/a..b'), { name: 'a..b' });
    assert.deepEqual(template.match('file://docs/gr%C3%BC%C3%9Fe'), { name: 'grüße' });
    assert.deepEqual(template.match('file://docs/%2e%2e%2e'), { name: '...' });
  });

  it('treats regular-expression characters in the literal part literally', () => {
    const template = parseUriTemplate('file:///logs/{name}.log');
    assert.deepEqual(template.match('file:///logs/app.log'), { name: 'app' });
    assert.equal(template.match('file:///logs/appXlog'), undefined);
  });

  it('refuses operators, modifiers, lists, bad names, duplicates and unbalanced braces with a reason', () => {
    const cases: Array<[string, RegExp]> = [
      ['sensors://{+path}', /operator, modifier or list/],
      ['sensors://{?q}', /operator, modifier or list/],
      ['sensors://{line:3}', /operator, modifier or list/],
      ['sensors://{list*}', /operator, modifier or list/],
      ['sensors://{a,b}', /operator, modifier or list/],
      ['sensors://{}', /empty variable/],
      ['sensors://{li-ne}', /not a valid name/],
      ['sensors://{a}/{a}', /appears twice/],
      ['sensors://{line', /without its "}"/],
      ['sensors://line}', /without its "{"/],
      ['sensors://{a{b}}', /inside a variable|without its/],
      ['no scheme {x}', /absolute URI template/],
    ];
    for (const [text, reason] of cases) assert.throws(() => parseUriTemplate(text), reason, text);
  });

  it('tells fixed URIs from non-URIs', () => {
    assert.equal(isFixedUri('plant://line-1/status'), true);
    assert.equal(isFixedUri('file:///var/log/app.log'), true);
    assert.equal(isFixedUri('line-1/status'), false);
    assert.equal(isFixedUri('plant://line 1'), false);
    assert.equal(isFixedUri('plant://{x}'), false);
  });
});
