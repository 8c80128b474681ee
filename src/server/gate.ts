import type { Principal } from '../accounts/principal.ts';

/**
 * The access check every face runs before an operation: who is calling (authentication), may they call
 * this RPC (scopes), and are they within their rate. Throws ApiError; returns the caller.
 */
export interface Gate {
  admit(authorization: string | undefined, client: string, rpc: string, caller?: Caller): Principal | Promise<Principal>;
}

/** Who the caller turned out to be, noted as soon as known: a refusal for scope or rate still names them in the log. */
export interface Caller {
  credentialId?: string;
  account?: string;
}
