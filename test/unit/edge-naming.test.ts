import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hubToolName, namingProblem } from '../../lib/edge/edge-naming.js';
import { SITE_PATTERN } from '../../lib/edge/edge-protocol.js';
import { TOOL_NAME_PATTERN } from '../../lib/mcp/tool-definition.js';

/**
 * Every (site, tool) pair over a small alphabet holding each kind of character that matters: site
 * characters, the separators patterns use, and characters only tool names have.
 */
function pairs(): Array<[string, string]> {
  const words = (alphabet: string, length: number): string[] => {
    let all = [''];
    const out: string[] = [];
    for (let n = 1; n <= length; n += 1) {
      all = all.flatMap((prefix) => [...alphabet].map((character) => prefix + character));
      out.push(...all);
    }
    return out;
  };
  const sites = words('a-0', 3).filter((site) => SITE_PATTERN.test(site));
  const tools = words('a-0._', 4).filter((tool) => TOOL_NAME_PATTERN.test(tool));
  return sites.flatMap((site) => tools.map((tool): [string, string] => [site, tool]));
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
