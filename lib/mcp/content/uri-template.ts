/**
 * RFC 6570 level 1 URI templates (`{name}` simple expansion only), the shape MCP resource templates
 * use in practice. Parsed once at deploy; matching a URI is one regular expression.
 */
export interface UriTemplate {
  readonly text: string;
  readonly variables: readonly string[];
  /** The variables' values (percent-decoded) when `uri` fits the template, else undefined. */
  match(uri: string): Record<string, string> | undefined;
}

/** RFC 6570 varname: ALPHA / DIGIT / "_" / pct-encoded, with dots between characters. */
const VARIABLE_NAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
/** An absolute URI: a scheme, a colon, and no whitespace (resources need not be HTTP URLs). */
const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/;
const OPERATORS = '+#./;?&=,!@|';

export class UriTemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UriTemplateError';
  }
}

/** Whether `text` is a fixed URI a resource can have: absolute, no spaces, no template braces. */
export function isFixedUri(text: string): boolean {
  return ABSOLUTE_URI.test(text) && !/[{}]/.test(text);
}

export function isUriTemplate(text: string): boolean {
  return text.includes('{');
}

/** Throws UriTemplateError naming the first problem; the editor shows the same text. */
export function parseUriTemplate(text: string): UriTemplate {
  if (!ABSOLUTE_URI.test(text.replace(/\{[^}]*\}/g, 'x'))) {
    throw new UriTemplateError('must be an absolute URI template such as sensors://{line}/readings, without spaces');
  }
  const variables: string[] = [];
  let pattern = '^';
  let rest = text;
  while (rest.length > 0) {
    const open = rest.indexOf('{');
    const close = rest.indexOf('}');
    if (open === -1) {
      if (close !== -1) throw new UriTemplateError('has a "}" without its "{"');
      pattern += escapeRegExp(rest);
      break;
    }
    if (close !== -1 && close < open) throw new UriTemplateError('has a "}" without its "{"');
    if (close === -1) throw new UriTemplateError('has a "{" without its "}"');
    pattern += escapeRegExp(rest.slice(0, open));
    const name = rest.slice(open + 1, close);
    if (name === '') throw new UriTemplateError('has an empty variable "{}"');
    if (name.includes('{')) throw new UriTemplateError('has a "{" inside a variable');
    if (OPERATORS.includes(name[0]!) || /[:*,]/.test(name)) {
      throw new UriTemplateError(`variable {${name}} uses an operator, modifier or list; only simple {name} variables are supported`);
    }
    if (!VARIABLE_NAME.test(name)) throw new UriTemplateError(`variable {${name}} is not a valid name (letters, digits, _ and .)`);
    if (variables.includes(name)) throw new UriTemplateError(`variable {${name}} appears twice`);
    variables.push(name);
    // Simple expansion percent-encodes every reserved character, so a value never holds / ? or #.
    pattern += '([^/?#]+)';
    rest = rest.slice(close + 1);
  }
  if (variables.length === 0) throw new UriTemplateError('has no {variable}; use it as a fixed URI instead');
  const expression = new RegExp(`${pattern}$`);
  return Object.freeze({
    text,
    variables: Object.freeze(variables),
    match(uri: string) {
      const found = expression.exec(uri);
      if (!found) return undefined;
      const values: Record<string, string> = {};
      for (let index = 0; index < variables.length; index += 1) {
        const decoded = safeDecode(found[index + 1]!);
        if (decoded === undefined) return undefined;
        values[variables[index]!] = decoded;
      }
      return values;
    },
  });
}

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
