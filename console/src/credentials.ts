/**
 * The credential the console sends: a session token from the login dialog, or an API key pasted in it.
 * Kept in this tab's sessionStorage only (a reload keeps it, closing the tab forgets it); it is added to
 * requests as they are sent and never written into the editor, a saved request, the history or a snippet.
 */
export interface Credential {
  kind: 'session' | 'key';
  token: string;
  /** The account, when known (a login says it). */
  username: string;
  expiresAt: string;
}

const STORAGE_KEY = 'tms.console.credential';
type Listener = (credential: Credential | undefined) => void;
const listeners = new Set<Listener>();

let current: Credential | undefined = (() => {
  try {
    const stored = sessionStorage.getItem(STORAGE_KEY);
    return stored ? (JSON.parse(stored) as Credential) : undefined;
  } catch {
    return undefined;
  }
})();

export const getCredential = (): Credential | undefined => current;

export function setCredential(credential: Credential | undefined): void {
  current = credential;
  if (credential) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credential));
  else sessionStorage.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener(credential);
}

export function onCredentialChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export const authorizationHeader = (): Record<string, string> => (current ? { authorization: `Bearer ${current.token}` } : {});

/** Header names the console never stores or shows: the credential travels only as it is sent. */
export const isCredentialHeader = (name: string): boolean => ['authorization', 'cookie', 'proxy-authorization'].includes(name.trim().toLowerCase());

/** A field whose value is a password (logging in, making an account): never kept. */
const PASSWORD_FIELD = /password/i;

function blankPasswords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(blankPasswords);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, field]) => [name, PASSWORD_FIELD.test(name) ? '' : blankPasswords(field)]));
}

/**
 * A request body as the console may keep it (the history, a saved request): a JSON body's password fields blanked.
 * A body that names a password but cannot be read as JSON is not kept at all.
 */
export function bodyWithoutPasswords(body: string): string {
  if (!PASSWORD_FIELD.test(body)) return body;
  try {
    return JSON.stringify(blankPasswords(JSON.parse(body)), null, 2);
  } catch {
    return '';
  }
}
