import type { OperationTable } from '../api/operation.ts';
import { parseInput } from '../api/validation.ts';
import { ApiError } from '../domain/errors.ts';
import type { Gate } from './gate.ts';
import type { RequestState } from './request-state.ts';
import { toApiError } from './errors.ts';

export interface InvokeDeps {
  operations: OperationTable;
  gate: Gate;
}

/** One call of an operation, from whichever face it came through. */
export interface Call {
  /** The fully qualified RPC name (`tms.v1.EventService.SearchEvents`), which REST routes map to too. */
  rpc: string;
  authorization: string | undefined;
  client: string;
  state: RequestState;
}

/**
 * The one way in, for REST and every RPC protocol: the gate (credentials, scope, rate), the operation, its
 * input validated once, its output. `input` is read only once the caller is admitted (a REST body is not
 * read for a caller without access). The request's state records who called; the face records the outcome
 * once it answers (a deadline may have answered first).
 */
export async function invoke(deps: InvokeDeps, call: Call, input: () => unknown): Promise<object> {
  const { state } = call;
  state.route = call.rpc;
  const principal = state.admitted ?? (await deps.gate.admit(call.authorization, call.client, call.rpc, state));
  state.credentialId = principal.credentialId;
  state.account = principal.account;
  const operation = deps.operations.get(call.rpc);
  if (!operation) throw new ApiError('unimplemented', `${call.rpc} is not implemented yet`);
  const fields = await input();
  const output = await operation.run(
    { principal, requestId: state.requestId, client: call.client, authorization: call.authorization, request: state },
    parseInput(operation.input, fields),
  );
  return output;
}

/**
 * The error a failed call answers with, noted in its state. An unexpected one keeps its cause, stack and all, for
 * the log; an unreachable database keeps only its reason, which each request of an outage repeats.
 */
export function failedCall(state: RequestState, thrown: unknown): ApiError {
  const error = toApiError(thrown);
  state.code = error.code;
  if (error === thrown) return error;
  if (error.code === 'internal') state.failure = thrown;
  else if (error.code === 'unavailable') state.outage = thrown instanceof Error ? { type: thrown.name, message: thrown.message } : { type: typeof thrown, message: String(thrown) };
  return error;
}
