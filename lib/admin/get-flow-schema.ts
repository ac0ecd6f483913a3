import { GET_FLOW_MODES } from './arguments.js';

const ID = { type: 'string', minLength: 1, maxLength: 256 } as const;

/** What a client may send. Combinations per mode are checked by `resolveArguments`. */
export const GET_FLOW_INPUT_SCHEMA = Object.freeze({
  type: 'object',
  properties: {
    mode: {
      type: 'string',
      enum: [...GET_FLOW_MODES],
      description: 'What to inspect. Default: "tabs", or "tab_summary" when id is given.',
    },
    id: { ...ID, description: 'Tab id (from mode "tabs").' },
    groupId: { ...ID, description: 'Group id, with mode "group" and id.' },
    nodeId: { ...ID, description: 'Node id, with modes "chain", "node" (and id) or "node_configs" (and id or subflowId).' },
    subflowId: { ...ID, description: 'Subflow definition id (from mode "subflows").' },
    configId: { ...ID, description: 'Config node id, with mode "config" (add id or subflowId for scoped config nodes).' },
    offset: { type: 'integer', minimum: 0, maximum: 10_000_000, description: 'Continue a list from meta.nextOffset.' },
    includeCode: { type: 'boolean', description: 'Mode "node" only: include Function node code (at most 10 000 characters).' },
    includeConfig: { type: 'boolean', description: 'Mode "node" only: include execution settings of supported node types.' },
  },
  additionalProperties: false,
});

const STRINGS = { type: 'array', items: { type: 'string' } } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;
const OBJECT = { type: 'object' } as const;
const OBJECTS = { type: 'array', items: { type: 'object' } } as const;
const NODE = {
  type: 'object',
  required: ['id', 'type'],
  properties: { id: { type: 'string' }, type: { type: 'string' } },
} as const;
const NODES = { type: 'array', items: NODE } as const;
const EDGES = {
  type: 'array',
  items: {
    type: 'object',
    required: ['source', 'port', 'target'],
    properties: { source: { type: 'string' }, port: COUNT, target: { type: 'string' } },
    additionalProperties: false,
  },
} as const;

/** What every answer looks like: `mode`, `meta`, the redaction lists, and the mode's own fields. */
export const GET_FLOW_OUTPUT_SCHEMA = Object.freeze({
  type: 'object',
  required: ['mode', 'meta', 'redactedProperties', 'omittedProperties'],
  properties: {
    mode: { type: 'string', enum: [...GET_FLOW_MODES] },
    meta: {
      type: 'object',
      required: ['source', 'reads', 'scannedNodes', 'returnedNodes', 'truncated', 'offset'],
      properties: {
        source: { type: 'string', enum: ['runtime-index', 'admin-api'] },
        reads: STRINGS,
        cached: { type: 'boolean' },
        scannedNodes: COUNT,
        returnedNodes: COUNT,
        truncated: { type: 'boolean' },
        offset: COUNT,
        total: COUNT,
        nextOffset: COUNT,
        wireVisits: COUNT,
      },
      additionalProperties: false,
    },
    redactedProperties: STRINGS,
    omittedProperties: STRINGS,
    configRedactedProperties: STRINGS,
    configOmittedProperties: STRINGS,
    tabs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'disabled', 'nodeCount', 'groupCount', 'configCount'],
        properties: {
          id: { type: 'string' },
          label: { type: 'string' },
          disabled: { type: 'boolean' },
          nodeCount: COUNT,
          groupCount: COUNT,
          configCount: COUNT,
        },
        additionalProperties: false,
      },
    },
    indexedEntries: COUNT,
    tab: { type: 'object', required: ['id', 'disabled'], properties: { id: { type: 'string' }, label: { type: 'string' }, disabled: { type: 'boolean' } } },
    counts: OBJECT,
    groups: NODES,
    chains: OBJECTS,
    keyNodes: NODES,
    group: NODE,
    members: NODES,
    chain: OBJECT,
    nodes: NODES,
    edges: EDGES,
    edgeCount: COUNT,
    node: NODE,
    incoming: EDGES,
    outgoing: EDGES,
    code: OBJECT,
    config: OBJECT,
    subflows: OBJECTS,
    subflow: OBJECT,
    usages: NODES,
    scope: {
      type: 'object',
      required: ['scope'],
      properties: { scope: { type: 'string', enum: ['tab', 'subflow', 'global'] }, id: { type: 'string' } },
      additionalProperties: false,
    },
    configs: NODES,
    properties: OBJECT,
    references: {
      type: 'array',
      items: {
        type: 'object',
        required: ['property', 'configId', 'type', 'scope'],
        properties: {
          property: { type: 'string' },
          configId: { type: 'string' },
          type: { type: 'string' },
          name: { type: 'string' },
          scope: { type: 'string', enum: ['tab', 'subflow', 'global'] },
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
});
