import type { CallerIdentity } from './access-policy.js';

/** What a flow sees of the caller in `msg.mcp`. Session and scopes stay with the palette. */
export interface CallerFields {
  subject?: string;
  email?: string;
  groups?: readonly string[];
  client?: string;
}

/**
 * A new object with the caller's subject, e-mail, groups and client, in that order, each only when
 * known. Assigned member by member, not spread from temporary objects: every call builds one.
 */
export function callerFields(caller: CallerIdentity): CallerFields {
  const fields: CallerFields = {};
  if (caller.subject !== undefined) fields.subject = caller.subject;
  if (caller.email !== undefined) fields.email = caller.email;
  if (caller.groups !== undefined) fields.groups = caller.groups;
  if (caller.client !== undefined) fields.client = caller.client;
  return fields;
}
