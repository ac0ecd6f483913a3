import { isPlainHeader, isHeadersKey, isSecretPath } from './redaction.js';

/**
 * What a value is, where its key name alone does not say whether it is secret:
 * - `headers`: HTTP headers, as an object (`{ Authorization: … }`, the http response node) or as
 *   the header list of the http request and websocket-client nodes
 *   (`[{ keyType, keyValue, valueType, valueValue }]`);
 * - `secret-operands`: switch rules that compare a secret-named property (`v`, `v2` are what the
 *   secret is compared with).
 */
export type Meaning = 'plain' | 'headers' | 'secret-operands';

// Typed-input types whose value names where the value comes from, not the value itself.
const REFERENCE_TYPES = new Set(['msg', 'flow', 'global', 'env']);
// The value fields of Node-RED's typed property assignments: inject `props` ({p, v, vt}) and change
// `rules` ({p, to, tot, from, fromt}). Each field's type is the field name plus `t`.
const ASSIGNED_FIELDS = ['v', 'to', 'from'];
const COMPARED_FIELDS = ['v', 'v2'];

/** The meaning of one top-level property of a node, from the node's type and settings. */
export function meaningOfProperty(owner: Readonly<Record<string, unknown>> | undefined, key: string): Meaning {
  if (isHeadersKey(key)) return 'headers';
  if (owner?.type === 'switch' && key === 'rules' && typeof owner.property === 'string' && isSecretPath(owner.property)) {
    return 'secret-operands';
  }
  return 'plain';
}

/** The meaning of a value stored as JSON text in a typed field (`vt: "json"`) of `object`. */
export function meaningOfJsonText(object: Readonly<Record<string, unknown>>): Meaning {
  if (typeof object.p !== 'string') return 'plain';
  const parts = object.p.split('.');
  return isHeadersKey(parts[parts.length - 1] ?? '') ? 'headers' : 'plain';
}

/** The type Node-RED stores beside a typed field: `vt` for `v`, `tot` for `to`, `payloadType` for `payload`. */
export function typeOfField(object: Readonly<Record<string, unknown>>, key: string): unknown {
  return object[`${key}t`] ?? object[`${key}Type`];
}

/**
 * The fields of `object` whose values are secret by what the object is, whatever their names:
 * a literal assigned to a secret-named message property, the value of any header but a plain
 * one, and what a secret is compared with.
 */
export function secretFieldsOf(object: Readonly<Record<string, unknown>>, meaning: Meaning): string[] {
  const secret: string[] = [];
  if (typeof object.p === 'string' && isSecretPath(object.p)) secret.push(...literalFields(object, ASSIGNED_FIELDS));
  if (meaning === 'secret-operands') secret.push(...literalFields(object, COMPARED_FIELDS));
  if (meaning === 'headers') secret.push(...(isHeaderEntry(object) ? secretHeaderEntryFields(object) : Object.keys(object).filter((name) => !isPlainHeader(name))));
  return [...new Set(secret)];
}

function literalFields(object: Readonly<Record<string, unknown>>, fields: readonly string[]): string[] {
  return fields.filter((field) => Object.hasOwn(object, field) && !REFERENCE_TYPES.has(String(object[`${field}t`])));
}

function isHeaderEntry(object: Readonly<Record<string, unknown>>): boolean {
  return 'keyType' in object || 'valueType' in object || 'valueValue' in object;
}

/**
 * One entry of a header list. The name is `keyValue` when `keyType` is `other`, else `keyType`
 * itself (`msg` names it at run time). The value is `valueValue` when `valueType` is `other`, read
 * from a message or the environment for `msg`/`env`, else `valueType` itself (a preset).
 */
function secretHeaderEntryFields(entry: Readonly<Record<string, unknown>>): string[] {
  const name = entry.keyType === 'other' ? entry.keyValue : entry.keyType === 'msg' ? undefined : entry.keyType;
  if (typeof name === 'string' && isPlainHeader(name)) return [];
  if (typeof entry.valueType === 'string' && REFERENCE_TYPES.has(entry.valueType)) return [];
  const fields: string[] = [];
  if ('valueValue' in entry) fields.push('valueValue');
  if (typeof entry.valueType === 'string' && entry.valueType !== 'other') fields.push('valueType');
  return fields;
}
