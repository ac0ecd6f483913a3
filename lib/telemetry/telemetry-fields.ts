/**
 * The fields every telemetry event has, meaning the same for a tool call and for a resource read,
 * prompt or completion, so one writer can take both kinds, told apart by `kind`.
 */
export interface TelemetryFields {
  readonly endpoint: string;
  /**
   * E-mail, else subject, of the signed-in caller; `editor:<Node-RED user>` for a Try-it call of a
   * tool from the editor; `unknown` without sign-in. Personal data.
   */
  readonly user: string;
  readonly client: string;
  /**
   * `flow` when the flow answered; get_flow's mode for the admin tool; `static` when the editor's
   * content or list answered a read, prompt or completion; `unknown` otherwise.
   */
  readonly mode: string;
  readonly status: string;
  readonly durationMs: number;
  readonly responseBytes: number;
}
