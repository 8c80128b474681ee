import type { z } from 'zod';
import type { Principal } from '../accounts/principal.ts';
import type { TaskRequest } from '../analysis/task-turns.ts';

/** Who is asking, for every operation, whatever face the request came through. */
export interface RequestContext {
  principal: Principal;
  requestId: string;
  /** Peer address, for login throttling. */
  client: string;
  /** The raw Authorization header (logout ends the session it names). */
  authorization?: string;
  /** The request as the server tracks it: analyses queued for a worker are dropped once it has ended. */
  request?: TaskRequest;
}

/**
 * One RPC as the domain sees it: a zod schema for its snake_case input and a handler returning its
 * snake_case output (the RPC's response message in proto-JSON form). Faces decode into `input`, call
 * `run`, and encode what it returns; nothing else.
 */
export interface Operation<S extends z.ZodType = z.ZodType> {
  input: S;
  run(ctx: RequestContext, input: z.output<S>): Promise<object>;
}

export const defineOperation = <S extends z.ZodType>(
  input: S,
  run: (ctx: RequestContext, input: z.output<S>) => Promise<object>,
): Operation<S> => ({ input, run });

/** Operations by fully qualified RPC name (`tms.v1.EventService.SearchEvents`). */
export type OperationTable = ReadonlyMap<string, Operation>;
