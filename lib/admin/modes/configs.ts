import { McpPaletteError } from '../../core/errors.js';
import { copyProperty, type CopyScope } from '../copy-value.js';
import type { FlowNode } from '../flow-shapes.js';
import { GET_FLOW_LIMITS } from '../limits.js';
import { paginate } from '../pagination.js';
import { childPath } from '../redaction.js';
import { describeScope, resolveConfigScope, type ConfigScope } from './config-scope.js';
import type { ModeAnswer, ModeContext } from './mode-context.js';

// Structure, not settings: ids and positions, and the user list Node-RED adds to global configs.
const STRUCTURAL_KEYS = new Set(['id', 'type', 'z', 'x', 'y', 'g', 'wires', '_users']);

/** Config-node ids, types and names of one scope. */
export async function configsMode(context: ModeContext): Promise<ModeAnswer> {
  const scope = await resolveConfigScope(context);
  const page = paginate(scope.configs, context.args.offset);
  context.inspection.returnedNodes = page.items.length;
  return {
    fields: {
      scope: scopeHeader(scope),
      configs: page.items.map((config, position) => configHeader(config, `configs[${position}]`, context.scope)),
    },
    total: page.total,
    nextOffset: page.nextOffset,
  };
}

/**
 * The ordinary properties of one config node, 40 fields and 64 KiB of values per page. Declared
 * credentials never reach the flow API; anything secret-looking that does is redacted.
 */
export async function configMode(context: ModeContext): Promise<ModeAnswer> {
  const { args, inspection } = context;
  const scope = await resolveConfigScope(context);
  const config = scope.configs.find((candidate) => candidate.id === args.configId);
  if (!config) {
    const hint = scope.scope === 'global' ? ' If it belongs to a tab or subflow, pass id or subflowId.' : '';
    throw new McpPaletteError('get_flow_not_found', `No config node "${args.configId}" in ${describeScope(scope)}.${hint}`);
  }
  // The header first: when the value budget runs out, what the node is survives.
  const header = configHeader(config, 'config', context.scope);
  const keys = Object.keys(config).filter((key) => !STRUCTURAL_KEYS.has(key));
  const properties: Record<string, unknown> = {};
  let used = 0;
  let fields = 0;
  let next: number | undefined;
  for (let position = args.offset; position < keys.length; position += 1) {
    if (fields >= GET_FLOW_LIMITS.pageSize) {
      next = position;
      break;
    }
    const key = keys[position]!;
    const value = config[key];
    // Page break before a value that would not fit; values over 32 KiB are omitted anyway.
    const estimate = Buffer.byteLength(JSON.stringify(value) ?? '');
    if (fields > 0 && estimate <= GET_FLOW_LIMITS.maxValueBytes && used + estimate > GET_FLOW_LIMITS.configBudgetBytes) {
      next = position;
      break;
    }
    fields += 1;
    const copied = copyProperty(key, value, childPath('properties', key), context.scope, config);
    if (!copied) continue;
    properties[key] = copied.value;
    used += Buffer.byteLength(JSON.stringify(copied.value));
  }
  inspection.returnedNodes = 1;
  return {
    fields: { scope: scopeHeader(scope), config: header, properties },
    total: keys.length,
    nextOffset: next,
  };
}

export function configHeader(config: FlowNode, path: string, scope: CopyScope): Record<string, unknown> {
  const header: Record<string, unknown> = { id: config.id, type: config.type };
  if (typeof config.name === 'string' && config.name !== '') {
    const name = copyProperty('name', config.name, childPath(path, 'name'), scope);
    if (name) header.name = name.value;
  }
  if (Array.isArray(config._users)) header.users = config._users.length;
  return header;
}

function scopeHeader(scope: ConfigScope): Record<string, unknown> {
  return scope.ownerId === undefined ? { scope: scope.scope } : { scope: scope.scope, id: scope.ownerId };
}
