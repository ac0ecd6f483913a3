import { McpPaletteError } from '../core/errors.js';
import type { SchemaFault } from './json-schema.js';
import { quotePattern } from './linear-pattern.js';

/**
 * One problem of a tool schema as a sentence to be: a catalog key under `schemaIssue.` and its
 * parameters. lib never translates; the editor and the node status turn each into one sentence in
 * the editor's language. `pointer` (a JSON pointer into the schema, `/` for the root) becomes the
 * sentence's subject.
 */
export interface SchemaIssue {
  readonly key: string;
  readonly pointer?: string;
  readonly params: Readonly<Record<string, string>>;
}

/** An invalid_input_schema / invalid_output_schema refusal that also carries its issues. */
export class SchemaRefusal extends McpPaletteError {
  readonly issues: readonly SchemaIssue[];

  constructor(code: string, reason: string, issues: readonly SchemaIssue[]) {
    super(code, reason, { reason });
    this.name = 'SchemaRefusal';
    this.issues = issues;
  }
}

export function isSchemaRefusal(value: unknown): value is SchemaRefusal {
  return value instanceof SchemaRefusal;
}

/** The meta-schema keywords whose parameters make a better sentence than "breaks the rule". */
export function issuesOfFaults(faults: readonly SchemaFault[]): SchemaIssue[] {
  return faults.map((fault): SchemaIssue => {
    if (fault.kind === 'dialect') return { key: 'dialect', params: { dialect: fault.dialect } };
    if (fault.kind === 'compile') return { key: 'compile', params: { detail: fault.detail } };
    if (fault.kind === 'pattern') return { key: 'pattern', params: { pattern: quotePattern(fault.pattern), detail: fault.detail } };
    const { pointer, keyword, params } = fault;
    if (keyword === 'enum' && Array.isArray(params.allowedValues)) {
      return { key: 'enum', pointer, params: { values: params.allowedValues.map((value) => JSON.stringify(value)).join(', ') } };
    }
    if (keyword === 'const') return { key: 'enum', pointer, params: { values: JSON.stringify(params.allowedValue) } };
    if (keyword === 'type') return { key: 'type', pointer, params: { type: String(params.type) } };
    if (keyword === 'required' && typeof params.missingProperty === 'string') {
      return { key: 'missingProperty', pointer, params: { property: params.missingProperty } };
    }
    if (keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      return { key: 'extraProperty', pointer, params: { property: params.additionalProperty } };
    }
    if (keyword === 'minimum' && typeof params.limit === 'number') return { key: 'atLeast', pointer, params: { limit: String(params.limit) } };
    if (keyword === 'maximum' && typeof params.limit === 'number') return { key: 'atMost', pointer, params: { limit: String(params.limit) } };
    return { key: 'rule', pointer, params: { keyword } };
  });
}

/** `/properties/a/type` -> `properties.a.type`, unescaping `~1` and `~0`; the root is `/`. */
export function pointerPath(pointer: string): string {
  if (pointer === '/' || pointer === '') return '/';
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}
