import type { RoundInput } from '../execution/broker.js';

/** What a round after the flow asked adds to its request's `msg.payload`: the answers (or why there are none) and its state. */
export function roundFields(input: RoundInput): Record<string, unknown> {
  return {
    inputRound: input.round,
    ...(input.inputResponses !== undefined ? { inputResponses: input.inputResponses } : {}),
    // Never folded into inputResponses: a flow acts on what nobody asked only when it reads this on purpose.
    ...(input.unaskedResponses !== undefined ? { unaskedResponses: input.unaskedResponses } : {}),
    ...(input.inputError !== undefined ? { inputError: input.inputError } : {}),
    ...(input.state !== undefined ? { state: input.state } : {}),
  };
}
