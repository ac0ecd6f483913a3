import { isPlainObject } from '../core/is-plain-object.js';
import { patternProblem } from '../mcp/linear-pattern.js';

/**
 * What MCP lets a form elicitation ask (2025-06-18 onwards): a flat object whose properties are
 * strings (optionally with a format), numbers, integers, booleans, or single- and multi-select
 * enums. Clients render a form from it, so anything richer (nested objects, $ref, arrays of
 * objects) is refused here, before it reaches a client that would reject or misrender it.
 */
export function elicitationSchemaProblem(schema: unknown): string | undefined {
  if (!isPlainObject(schema) || schema['type'] !== 'object') return 'elicitation.requestedSchema must be { "type": "object", "properties": { ... } }';
  const properties = schema['properties'];
  if (!isPlainObject(properties) || Object.keys(properties).length === 0) return 'elicitation.requestedSchema.properties must name at least one field';
  for (const [name, property] of Object.entries(properties)) {
    const problem = propertyProblem(property);
    if (problem) return `elicitation.requestedSchema.properties.${name}: ${problem}`;
  }
  const required = schema['required'];
  if (required !== undefined) {
    if (!Array.isArray(required) || !required.every((name) => typeof name === 'string')) return 'elicitation.requestedSchema.required must be an array of field names';
    const unknown = required.find((name) => !(name in properties));
    if (unknown !== undefined) return `elicitation.requestedSchema.required names ${JSON.stringify(unknown)}, which is not among its properties`;
  }
  return undefined;
}

const STRING_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

function propertyProblem(property: unknown): string | undefined {
  if (!isPlainObject(property)) return 'must be a schema object';
  switch (property['type']) {
    case 'string':
      return stringProblem(property);
    case 'number':
    case 'integer':
      return typeof property['default'] === 'number' || property['default'] === undefined ? undefined : 'its default must be a number';
    case 'boolean':
      return typeof property['default'] === 'boolean' || property['default'] === undefined ? undefined : 'its default must be true or false';
    case 'array':
      return multiSelectProblem(property);
    default:
      return 'type must be string, number, integer, boolean, or array (a multi-select of strings); forms cannot ask for nested objects';
  }
}

function stringProblem(property: Record<string, unknown>): string | undefined {
  const format = property['format'];
  if (format !== undefined && !STRING_FORMATS.has(String(format))) return 'format must be email, uri, date or date-time';
  if (property['enum'] !== undefined && !isStringList(property['enum'])) return 'enum must be a non-empty array of strings';
  if (property['enumNames'] !== undefined && (!isStringList(property['enumNames']) || (property['enumNames'] as unknown[]).length !== (property['enum'] as unknown[] | undefined)?.length)) {
    return 'enumNames must be strings, one for each enum value';
  }
  if (property['oneOf'] !== undefined && !isTitledOptions(property['oneOf'])) return 'oneOf must be a non-empty array of { "const": "...", "title": "..." }';
  if (property['default'] !== undefined && typeof property['default'] !== 'string') return 'its default must be a string';
  // Answers are checked against it on the linear-time engine, which must be able to run it.
  if (property['pattern'] !== undefined) return typeof property['pattern'] === 'string' ? patternProblem(property['pattern']) : 'pattern must be a string';
  return undefined;
}

function multiSelectProblem(property: Record<string, unknown>): string | undefined {
  const items = property['items'];
  const ok = isPlainObject(items) && ((items['type'] === 'string' && isStringList(items['enum'])) || isTitledOptions(items['anyOf']));
  if (!ok) return 'an array must be a multi-select: items { "type": "string", "enum": [...] } or items { "anyOf": [{ "const", "title" }] }';
  if (property['default'] !== undefined && !isStringList(property['default'], true)) return 'its default must be an array of strings';
  return undefined;
}

function isStringList(value: unknown, emptyAllowed = false): boolean {
  return Array.isArray(value) && (emptyAllowed || value.length > 0) && value.every((item) => typeof item === 'string');
}

function isTitledOptions(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every((option) => isPlainObject(option) && typeof option['const'] === 'string');
}
