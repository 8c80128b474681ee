import type { AccessControl } from '../accounts/access.ts';
import type { Principal, Scope } from '../accounts/principal.ts';
import type { RateLimiter } from '../accounts/rate-limit.ts';
import type { Caller, Gate } from './gate.ts';
import { authorize, isPublic } from '../accounts/authorization.ts';
import { ApiError } from '../domain/errors.ts';

const ANONYMOUS: Principal = Object.freeze({ account: '', scopes: new Set<Scope>(), credentialId: 'anonymous', kind: 'session' });

/** authenticate → authorize → rate limit, the same for every face. */
export function createGate(access: AccessControl, limiter: RateLimiter): Gate {
  return {
    admit(authorization, client, rpc, caller) {
      if (isPublic(rpc)) return ANONYMOUS;
      const authenticated = access.identify(authorization, client);
      return authenticated instanceof Promise ? authenticated.then((principal) => allow(principal, rpc, caller)) : allow(authenticated, rpc, caller);
    },
  };

  function allow(principal: Principal, rpc: string, caller: Caller | undefined): Principal {
    if (caller) {
      caller.credentialId = principal.credentialId;
      caller.account = principal.account;
    }
    authorize(principal, rpc);
    const decision = limiter.take(principal.credentialId);
    if (!decision.ok) {
      throw new ApiError(
        'resource_exhausted',
        `rate limit exceeded for credential ${principal.credentialId}: retry after ${decision.retryAfterSeconds} s`,
        [{ type: 'tms.v1.RetryInfo', debug: { retry_after_seconds: decision.retryAfterSeconds } }],
      );
    }
    return principal;
  }
}
