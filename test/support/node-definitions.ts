// Each node type's editor definition (its `defaults`, with their checks) as the browser builds it,
// read here without a browser: the template's scripts and the shared editor parts they load run in a
// sandbox whose RED and jQuery only record what is registered. Lets a unit test hold the runtime to
// the same defaults the dialogs show.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { repoRoot } from './node-red-process.js';

export interface FieldDefault {
  readonly value?: unknown;
  readonly type?: string;
  readonly required?: boolean;
  readonly validate?: (this: unknown, value: unknown, options: object) => unknown;
}

export interface NodeDefinition {
  readonly category: string;
  readonly defaults: Readonly<Record<string, FieldDefault>>;
}

/** Every node type of the palette (the folders under nodes/). */
export const paletteTypes: readonly string[] = readdirSync(join(repoRoot, 'nodes'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** `type`'s definition, as nodes/<type>/<type>.html registers it. */
export function nodeDefinition(type: string): NodeDefinition {
  const registered = new Map<string, NodeDefinition>();
  // A chainable stand-in for jQuery: the templates only touch the page inside functions that a
  // definition's registration never calls, except the shared parts' one-off setup.
  const chain: unknown = new Proxy(function () {}, { get: () => chain, apply: () => chain });
  const sandbox = vm.createContext({
    $: chain,
    jQuery: chain,
    RED: {
      nodes: {
        registerType: (name: string, def: NodeDefinition) => registered.set(name, def),
        getType: () => ({ _: (key: string) => key }),
      },
      settings: {},
    },
    console,
  });
  sandbox.window = sandbox;
  const html = readFileSync(join(repoRoot, 'nodes', type, `${type}.html`), 'utf8');
  for (const match of html.matchAll(/<script type="text\/javascript"(?: src="resources\/[^"]+\/([^"/]+)")?>([\s\S]*?)<\/script>/g)) {
    const code = match[1] ? readFileSync(join(repoRoot, 'resources', match[1]), 'utf8') : match[2];
    vm.runInContext(code, sandbox);
  }
  const def = registered.get(type);
  if (!def) throw new Error(`nodes/${type}/${type}.html registers no ${type}`);
  return def;
}

/**
 * The fields a node may be saved without, and which then read as their default: what its dialog
 * shows for them (resources/mcp-editor-types.js, showDefaultsOfMissingFields) and what the runtime
 * must run with. Not config node pickers, not required fields, not blank defaults, and only those
 * whose check passes a missing value.
 */
export function defaultedFields(def: NodeDefinition, node: object = {}): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (const [field, spec] of Object.entries(def.defaults)) {
    if (spec.type || spec.required || spec.value === undefined || spec.value === '') continue;
    if (spec.validate && spec.validate.call(node, undefined, {}) !== true) continue;
    fields.set(field, spec.value);
  }
  return fields;
}
