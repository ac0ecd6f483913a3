/**
 * The value of a JSON text, or undefined when it is not JSON: for messages from storage or another
 * instance, which are checked field by field after parsing and dropped when malformed.
 */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
