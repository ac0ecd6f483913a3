import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { edgeUri, hubToolName, hubUri, namingProblem, uriNamingProblem } from '../../lib/edge/edge-naming.js';
import { SITE_PATTERN } from '../../lib/edge/edge-protocol.js';
import { TOOL_NAME_PATTERN } from '../../lib/mcp/tool-definition.js';

/** Every word of 1 to `length` characters of `alphabet`. */
function words(alphabet: string, length: number): string[] {
  let all = [''];
  const out: string[] = [];
  for (let n = 1; n <= length; n += 1) {
    all = all.flatMap((prefix) => [...alphabet].map((character) => prefix + character));
    out.push(...all);
  }
  return out;
}

const SITES = words('a-0', 3).filter((site) => SITE_PATTERN.test(site));

/**
 * Every (site, tool) pair over a small alphabet holding each kind of character that matters: site
 * characters, the separators patterns use, and characters only tool names have.
 */
function pairs(): Array<[string, string]> {
  const tools = words('a-0._', 4).filter((tool) => TOOL_NAME_PATTERN.test(tool));
  return SITES.flatMap((site) => tools.map((tool): [string, string] => [site, tool]));
}

/**
 * Every (site, URI) pair over a small alphabet: site characters and the separators URI patterns use.
 * The URIs are not filtered: a stolen edge may announce any text, and the hub's name must still
 * give back one site.
 */
function uriPairs(): Array<[string, string]> {
  const uris = words('a-0/:#', 4);
  return SITES.flatMap((site) => uris.map((uri): [string, string] => [site, uri]));
}

/** Two different (site, tool) pairs that give one hub name under `naming`, if any. */
function collision(naming: string): [string, string, string] | undefined {
  const seen = new Map<string, string>();
  for (const [site, tool] of pairs()) {
    const name = hubToolName(naming, site, tool);
    const other = seen.get(name);
    if (other !== undefined && other !== site) return [name, other, site];
    seen.set(name, site);
  }
  return undefined;
}

/** Two different (site, URI) pairs that give one hub URI under `naming`, if any. */
function uriCollision(naming: string): [string, string, string] | undefined {
  const seen = new Map<string, string>();
  for (const [site, uri] of uriPairs()) {
    const name = hubUri(naming, site, uri);
    const other = seen.get(name);
    if (other !== undefined && other !== site) return [name, other, site];
    seen.set(name, site);
  }
  return undefined;
}

describe('edge tool naming on a hub', () => {
  it("names a site's tool by the pattern", () => {
    assert.equal(hubToolName('{site}.{tool}', 'plant-a', 'open_valve'), 'plant-a.open_valve');
    assert.equal(hubToolName('edge_{tool}_at_{site}', 'plant-a', 'open_valve'), 'edge_open_valve_at_plant-a');
  });

  it('accepts patterns under which no two sites share a hub name', () => {
    for (const naming of ['{site}.{tool}', '{site}_{tool}', '{tool}.{site}', 'edge_{tool}_at_{site}', 'x-{site}.{tool}-y', '{tool}@{site}', '{site}-_{tool}', '{tool}._a{site}']) {
      assert.equal(namingProblem(naming), undefined, naming);
      assert.equal(collision(naming), undefined, naming);
    }
  });

  it('refuses a pattern with nothing between {site} and {tool} that a site name cannot contain: two sites would share a name', () => {
    assert.equal(hubToolName('{site}-{tool}', 'plant', 'a-open_valve'), hubToolName('{site}-{tool}', 'plant-a', 'open_valve'));
    const refused: Array<[string, string]> = [
      ['{site}-{tool}', 'the text between {site} and {tool} ("-") could be part of a site name'],
      ['{tool}-{site}', 'the text between {site} and {tool} ("-") could be part of a site name'],
      ['{site}0{tool}', 'the text between {site} and {tool} ("0") could be part of a site name'],
      ['_{tool}-{site}_', 'the text between {site} and {tool} ("-") could be part of a site name'],
      ['{site}{tool}', 'it needs a separator between {site} and {tool}'],
      ['{tool}{site}', 'it needs a separator between {site} and {tool}'],
    ];
    for (const [naming, problem] of refused) {
      assert.equal(namingProblem(naming), problem, naming);
      assert.ok(collision(naming), `${naming} would let two sites share a hub name`);
    }
  });

  it('refuses a pattern without {site} and {tool} once each, or longer than 64 characters', () => {
    for (const naming of ['{tool}', 'edge_{site}', '{site}.{tool}.{site}', '{site}.{tool}.{tool}']) {
      assert.equal(namingProblem(naming), 'it must contain {site} and {tool} once each', naming);
    }
    assert.equal(namingProblem(`{site}.{tool}${'x'.repeat(52)}`), 'it is longer than 64 characters');
    assert.equal(namingProblem(`{site}.{tool}${'x'.repeat(51)}`), undefined);
  });
});

describe('edge resource URIs on a hub', () => {
  it("names a site's resource URI or template by the pattern, keeping the URI literal", () => {
    assert.equal(hubUri('edge://{site}/{uri}', 'plant-a', 'plant://line-1/status'), 'edge://plant-a/plant://line-1/status');
    assert.equal(hubUri('{uri}#{site}', 'plant-a', 'plant://line-1/status'), 'plant://line-1/status#plant-a');
    assert.equal(hubUri('edge://{site}/{uri}', 'plant-a', 'plant://logs/{day}'), 'edge://plant-a/plant://logs/{day}');
    // `$&` and a `{site}` inside the edge's URI are text, not replacement patterns.
    assert.equal(hubUri('edge://{site}/{uri}', 'plant-a', 'plant://x/$&$1'), 'edge://plant-a/plant://x/$&$1');
    assert.equal(hubUri('edge://{site}/{uri}', 'plant-a', 'plant://{site}'), 'edge://plant-a/plant://{site}');
  });

  it("gives back the edge's URI from its hub URI, and nothing for another site's or a foreign URI", () => {
    const naming = 'edge://{site}/{uri}';
    assert.equal(edgeUri(naming, 'plant-a', 'edge://plant-a/plant://line-1/status'), 'plant://line-1/status');
    assert.equal(edgeUri(naming, 'plant-a', 'edge://plant-a/plant://logs/{day}'), 'plant://logs/{day}');
    assert.equal(edgeUri('{uri}#{site}', 'plant-a', 'plant://line-1/status#plant-a'), 'plant://line-1/status');
    assert.equal(edgeUri(naming, 'plant', 'edge://plant-a/plant://line-1/status'), undefined);
    assert.equal(edgeUri(naming, 'plant-a', 'edge://plant/a/plant://line-1/status'), undefined);
    assert.equal(edgeUri(naming, 'plant-a', 'plant://line-1/status'), undefined);
    assert.equal(edgeUri(naming, 'plant-a', 'edge://plant-a'), undefined);
    assert.equal(edgeUri('{uri}#{site}', 'plant-a', 'plant://line-1/status#plant-b'), undefined);
    // The fixed text before and after {uri} may not overlap: `e:a/` starts with `e:a/` and ends with `/`.
    assert.equal(edgeUri('e:{site}/{uri}/', 'a', 'e:a/'), undefined);
    assert.equal(edgeUri('e:{site}/{uri}/', 'a', 'e:a//'), '');
  });

  it('round-trips every (site, URI) pair under the accepted patterns, and no other site claims it', () => {
    for (const naming of ['edge://{site}/{uri}', '{uri}#{site}', 'edge+{site}:{uri}']) {
      for (const [site, uri] of uriPairs()) {
        const name = hubUri(naming, site, uri);
        assert.equal(edgeUri(naming, site, name), uri, `${naming}: ${site} ${uri}`);
        for (const other of SITES) {
          if (other !== site) assert.equal(edgeUri(naming, other, name), undefined, `${naming}: ${name} is not ${other}'s`);
        }
      }
    }
  });

  it('accepts patterns under which no two sites share a hub URI and the result is an absolute URI', () => {
    for (const naming of ['edge://{site}/{uri}', '{uri}#{site}', 'edge+{site}:{uri}', 'urn:edge:{site}:{uri}', `edge://{site}/{uri}#${'x'.repeat(108)}`]) {
      assert.equal(uriNamingProblem(naming), undefined, naming);
      assert.equal(uriCollision(naming), undefined, naming);
    }
  });

  it('refuses a pattern with nothing between {site} and {uri} that a site name cannot contain: two sites would share a URI', () => {
    const refused: Array<[string, string]> = [
      ['edge://{site}-{uri}', 'the text between {site} and {uri} ("-") could be part of a site name'],
      ['x{site}-{uri}', 'the text between {site} and {uri} ("-") could be part of a site name'],
      ['{uri}0{site}', 'the text between {site} and {uri} ("0") could be part of a site name'],
      ['{site}{uri}', 'it needs a separator between {site} and {uri}'],
      ['edge://{site}{uri}', 'it needs a separator between {site} and {uri}'],
      ['{uri}{site}', 'it needs a separator between {site} and {uri}'],
    ];
    for (const [naming, problem] of refused) {
      assert.equal(uriNamingProblem(naming), problem, naming);
      assert.ok(uriCollision(naming), `${naming} would let two sites share a hub URI`);
    }
  });

  it('refuses a pattern without {site} and {uri} once each, longer than 128 characters, or giving no absolute URI', () => {
    for (const naming of ['{uri}', 'edge://{site}/', 'edge://{site}/{uri}/{uri}', 'edge://{site}/{site}/{uri}', '{site}.{tool}']) {
      assert.equal(uriNamingProblem(naming), 'it must contain {site} and {uri} once each', naming);
    }
    assert.equal(uriNamingProblem(`edge://{site}/{uri}#${'x'.repeat(109)}`), 'it is longer than 128 characters');
    // Unambiguous, but not a URI for every site: no scheme, a space, or a scheme begun by the site (sites may start with a digit).
    for (const naming of ['{site}/{uri}', '//{site}/{uri}', 'edge://{site}/ {uri}', '1edge://{site}/{uri}', '{site}:{uri}', '{site}+{uri}']) {
      assert.equal(uriNamingProblem(naming), 'it must give an absolute URI for every site, such as edge://{site}/{uri}', naming);
    }
  });
});
