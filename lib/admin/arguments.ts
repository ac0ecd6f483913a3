import { McpPaletteError } from '../core/errors.js';

export const GET_FLOW_MODES = ['tabs', 'tab_summary', 'group', 'chain', 'node', 'subflows', 'subflow', 'configs', 'config', 'node_configs'] as const;
export type GetFlowMode = (typeof GET_FLOW_MODES)[number];

type ArgumentName = 'id' | 'groupId' | 'nodeId' | 'subflowId' | 'configId' | 'offset' | 'includeCode' | 'includeConfig';

export interface GetFlowArguments {
  readonly mode: GetFlowMode;
  readonly id?: string;
  readonly groupId?: string;
  readonly nodeId?: string;
  readonly subflowId?: string;
  readonly configId?: string;
  readonly offset: number;
  readonly includeCode: boolean;
  readonly includeConfig: boolean;
}

interface ModeRule {
  readonly required: readonly ArgumentName[];
  readonly optional: readonly ArgumentName[];
  /** At most one of these (`oneOf`: exactly one). */
  readonly either?: { readonly names: readonly ArgumentName[]; readonly exactlyOne: boolean };
}

const SCOPE = { names: ['id', 'subflowId'], exactlyOne: false } as const;

const RULES: Readonly<Record<GetFlowMode, ModeRule>> = {
  tabs: { required: [], optional: ['offset'] },
  tab_summary: { required: ['id'], optional: ['offset'] },
  group: { required: ['id', 'groupId'], optional: ['offset'] },
  chain: { required: ['id', 'nodeId'], optional: ['offset'] },
  node: { required: ['id', 'nodeId'], optional: ['includeCode', 'includeConfig'] },
  subflows: { required: [], optional: ['offset'] },
  subflow: { required: ['subflowId'], optional: ['id', 'offset'] },
  configs: { required: [], optional: ['id', 'subflowId', 'offset'], either: SCOPE },
  config: { required: ['configId'], optional: ['id', 'subflowId', 'offset'], either: SCOPE },
  node_configs: { required: ['nodeId'], optional: ['id', 'subflowId', 'offset'], either: { ...SCOPE, exactlyOne: true } },
};

/**
 * Resolves the mode (none means `tabs`, or `tab_summary` when an `id` is given) and refuses a
 * combination the mode does not use, so a mistyped call fails loudly instead of being half-read.
 * Types and ranges were already checked against the input schema.
 */
export function resolveArguments(args: Readonly<Record<string, unknown>>): GetFlowArguments {
  const given = new Set<ArgumentName>();
  const text = (name: ArgumentName): string | undefined => {
    const value = args[name];
    if (typeof value !== 'string') return undefined;
    given.add(name);
    return value;
  };
  const id = text('id');
  const groupId = text('groupId');
  const nodeId = text('nodeId');
  const subflowId = text('subflowId');
  const configId = text('configId');
  const offset = typeof args.offset === 'number' ? args.offset : 0;
  if (typeof args.offset === 'number') given.add('offset');
  // `false` asks for nothing extra, so it is accepted with any mode.
  const includeCode = args.includeCode === true;
  const includeConfig = args.includeConfig === true;
  if (includeCode) given.add('includeCode');
  if (includeConfig) given.add('includeConfig');

  const mode: GetFlowMode = typeof args.mode === 'string' ? (args.mode as GetFlowMode) : id !== undefined ? 'tab_summary' : 'tabs';
  const rule = RULES[mode];
  if (!rule) throw invalid(`Unknown mode "${String(args.mode)}"; use one of ${GET_FLOW_MODES.join(', ')}.`);
  const missing = rule.required.filter((name) => !given.has(name));
  if (missing.length > 0) throw invalid(`Mode "${mode}" needs ${missing.join(' and ')}.`);
  const allowed = new Set<ArgumentName>([...rule.required, ...rule.optional]);
  const extra = [...given].filter((name) => !allowed.has(name));
  if (extra.length > 0) throw invalid(`${extra.join(' and ')} ${extra.length > 1 ? 'do' : 'does'} not apply to mode "${mode}".`);
  if (rule.either) {
    const present = rule.either.names.filter((name) => given.has(name));
    if (present.length > 1) throw invalid(`Mode "${mode}" takes ${rule.either.names.join(' or ')}, not both.`);
    if (rule.either.exactlyOne && present.length === 0) throw invalid(`Mode "${mode}" needs ${rule.either.names.join(' or ')}.`);
  }
  return { mode, id, groupId, nodeId, subflowId, configId, offset, includeCode, includeConfig };
}

function invalid(message: string): McpPaletteError {
  return new McpPaletteError('get_flow_invalid_arguments', message);
}
