/**
 * RFC 6570 level 1 URI templates (`{name}` simple expansion only), the shape MCP resource templates
 * use in practice. Parsed once at deploy; matching a URI is one regular expression.
 *
 * Each variable is one path segment, after decoding too: a flow that builds a file path from a value
 * must never meet `../../etc/passwd` sent as `..%2F..%2Fetc%2Fpasswd`. A value that decodes to a path
 * separator (`/`, `\`), a dot segment (`.`, `..`) or a control character (C0, DEL, C1) does not match,
 * so the read is refused like any URI no resource has. Multi-segment variables (`{+path}`, `{/path*}`)
 * are operators this parser refuses, so no template can ask for one.
 */
export interface UriTemplate {
  readonly text: string;
  readonly variables: readonly string[];
  /**
   * The variables' values (percent-decoded) when `uri` fits the template and each value is one
   * segment (see above), else undefined.
   */
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

/** A path separator or a control character (C0, DEL, C1) anywhere in a decoded value. */
const NOT_ONE_SEGMENT = /[/\\\u0000-\u001f\u007f-\u009f]/;

/** The decoded value when it is one segment; undefined for invalid percent-encoding or more. */
function safeDecode(value: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return undefined;
  }
  if (decoded === '.' || decoded === '..' || NOT_ONE_SEGMENT.test(decoded)) return undefined;
  return decoded;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
