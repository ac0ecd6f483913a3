import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentAccess } from '../../lib/editor/content-access.js';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';

describe('contentAccess (the sidebar sheet of resources and prompts)', () => {
  it('lists fixed resources, then templates, then prompts, each in list order, with its Allowed groups (sorted, as the runtime keeps them)', () => {
    const catalog = new ContentCatalog(
      [
        parseResourceConfig({ resourceName: 'readings', uri: 'plant://readings/{sensor}', endpoint: '/ops', allowedGroups: 'maintenance' }),
        parseResourceConfig({ resourceName: 'manual', uri: 'plant://manual', endpoint: '/ops' }),
        parseResourceConfig({ resourceName: 'alarms', uri: 'plant://alarms', endpoint: '/ops', allowedGroups: 'ops, maintenance' }),
      ],
      [parsePromptConfig({ promptName: 'shift_report', endpoint: '/ops', messages: [{ role: 'user', text: 'hi' }] })],
    );
    assert.deepEqual(contentAccess(catalog), [
      { kind: 'resource', name: 'alarms', uri: 'plant://alarms', allowedGroups: ['maintenance', 'ops'] },
      { kind: 'resource', name: 'manual', uri: 'plant://manual' },
      { kind: 'template', name: 'readings', uri: 'plant://readings/{sensor}', allowedGroups: ['maintenance'] },
      { kind: 'prompt', name: 'shift_report' },
    ]);
  });

  it('lists everything the deploy serves, not what one caller may see', () => {
    const whole = new ContentCatalog([parseResourceConfig({ resourceName: 'secret', uri: 'plant://secret', endpoint: '/ops', allowedGroups: 'maintenance' })], []);
    const outsiders = whole.restrictedTo(() => false);
    assert.equal(contentAccess(outsiders).length, 0, 'a caller view leaves it out');
    assert.deepEqual(contentAccess(whole).map((item) => item.name), ['secret']);
  });

  it("names the edge site of a hub's relayed items", () => {
    const relayed = (site: string, name: string) => ({ site, name });
    const resource = { ...parseResourceConfig({ resourceName: 'manual', uri: 'edge://plant-a/plant://manual', endpoint: '*', source: 'flow' }), relay: relayed('plant-a', 'plant://manual') };
    const prompt = { ...parsePromptConfig({ promptName: 'plant-a.report', endpoint: '*', source: 'flow' }), relay: relayed('plant-a', 'report') };
    const own = parseResourceConfig({ resourceName: 'own', uri: 'hub://own', endpoint: '/ops' });
    assert.deepEqual(contentAccess(new ContentCatalog([resource, own], [prompt])), [
      { kind: 'resource', name: 'manual', uri: 'edge://plant-a/plant://manual', site: 'plant-a' },
      { kind: 'resource', name: 'own', uri: 'hub://own' },
      { kind: 'prompt', name: 'plant-a.report', site: 'plant-a' },
    ]);
  });
});
