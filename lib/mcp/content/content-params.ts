import { z } from 'zod';

/**
 * The params of `prompts/get` and `resources/read` as the endpoint checks them itself. The SDK's own
 * check of these spec methods answers a wrong type with -32603 and its validator's dump; registered
 * with these schemas instead, it answers -32602 `Invalid params for <method>: <field>: <message>`.
 * Argument values are only required to be there: the handler names a non-string one itself
 * (checkPromptArguments), so the message says which argument of which prompt is wrong.
 */
export const PROMPT_GET_PARAMS = z.looseObject({
  name: z.string({ error: 'must be the name of a prompt (a string)' }),
  arguments: z.record(z.string(), z.unknown(), { error: 'must be an object whose values are strings' }).optional(),
});

export const RESOURCE_READ_PARAMS = z.looseObject({
  uri: z.string({ error: 'must be the URI of a resource (a string)' }),
});
