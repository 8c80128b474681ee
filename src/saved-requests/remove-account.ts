import type { AccessControl } from '../accounts/access.ts';
import type { Principal } from '../accounts/principal.ts';
import type { SavedRequests } from './saved-requests.ts';

/**
 * Removes an account with everything that is its own: keys, sessions and saved console requests (which ends
 * their shares), so a new account of the same name starts empty. Answers the name as stored.
 */
export async function removeAccount(access: AccessControl, savedRequests: SavedRequests, actor: Principal, username: unknown): Promise<string> {
  const name = await access.deleteAccount(actor, username);
  // After the account and its credentials: a save already queued for its name is deleted with the rest.
  await savedRequests.forgetOwner(name);
  return name;
}
