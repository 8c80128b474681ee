import { useRef, useState } from 'preact/hooks';
import { Dialog } from './dialog.tsx';
import { Tabs } from './tabs.tsx';
import { ApiFailure, login, logout } from '../saved-api.ts';
import { setCredential, type Credential } from '../credentials.ts';

/** A key made by tms names its id: `tms_<key_id>_<secret>` (a TMS_ADMIN_KEY chosen by the operator may not). */
const KEY_ID = /^tms_(key_[0-9a-f]{16})_/;

/**
 * A key's id: named in a key tms made, else the one the server derives (`key_` and the first 8 bytes of the key's
 * SHA-256, in hex), as for the operator's TMS_ADMIN_KEY. Outside a secure context the page has no digest to make it.
 */
async function keyIdOf(key: string): Promise<string | undefined> {
  const named = KEY_ID.exec(key)?.[1];
  if (named || !crypto.subtle) return named;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
  return `key_${[...digest.subarray(0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

interface Props {
  open: boolean;
  /** Why it opened: e.g. the session expired. */
  reason: string;
  onClose(): void;
  onLoggedIn(credential: Credential): void;
}

/** Username and password (a session from `/v1/login`), or an API key; errors stay in the dialog. */
export function LoginDialog({ open, reason, onClose, onLoggedIn }: Props) {
  const [mode, setMode] = useState<'password' | 'key'>('password');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // Each submission's number; closing the dialog moves it on, so an answer that arrives after is not used.
  const attempt = useRef(0);

  const finish = (credential: Credential) => {
    setCredential(credential);
    setPassword('');
    setApiKey('');
    setError('');
    onLoggedIn(credential);
  };

  const close = () => {
    attempt.current++;
    setBusy(false);
    setError('');
    onClose();
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const mine = ++attempt.current;
    const abandoned = () => mine !== attempt.current;
    setBusy(true);
    setError('');
    try {
      if (mode === 'password') {
        const session = await login(username.trim(), password);
        if (abandoned()) {
          // Cancelled while it was under way: the session is not kept, so it is ended rather than left to expire.
          void logout(session.token).catch(() => {});
          return;
        }
        finish({ kind: 'session', token: session.token, username: username.trim().toLowerCase(), expiresAt: session.expires_at });
      } else {
        const key = apiKey.trim();
        // Checked before it is kept: a typo is reported here, not on the next request.
        // The first page (the server's default size) holds the key itself, unless it is an admin key listed after
        // a page of other accounts' keys: it is found by its id, and named by that id when not on the page.
        const response = await fetch('/v1/keys', { headers: { authorization: `Bearer ${key}` }, credentials: 'omit', cache: 'no-store' });
        if (!response.ok) {
          const body = (await response.json().catch(() => ({}))) as { message?: string };
          throw new ApiFailure(response.status, { code: String(response.status), message: body.message ?? response.statusText, details: [] });
        }
        const keys = (await response.json()) as { keys?: { key_id?: string; account?: string }[] };
        if (abandoned()) return;
        const keyId = await keyIdOf(key);
        const own = keys.keys?.find((listed) => listed.key_id === keyId);
        finish({ kind: 'key', token: key, username: own?.account ?? keyId ?? 'account not known', expiresAt: '' });
      }
    } catch (thrown) {
      if (abandoned()) return;
      setError(thrown instanceof ApiFailure ? thrown.info.message : `Could not reach the server: ${(thrown as Error).message}`);
    } finally {
      if (!abandoned()) setBusy(false);
    }
  };

  return (
    <Dialog title="Log in" open={open} onClose={close}>
      {reason && <p class="muted">{reason}</p>}
      <Tabs
        label="How to log in"
        idPrefix="login"
        tabs={[
          { id: 'password', label: 'Username and password' },
          { id: 'key', label: 'API key' },
        ]}
        selected={mode}
        onSelect={setMode}
        namedPanel={false}
      >
        <form onSubmit={submit} class="stack">
          {mode === 'password' ? (
            <>
              <label>
                Username
                <input name="username" autocomplete="username" required autoFocus value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
              </label>
              <label>
                Password
                <input name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
              </label>
            </>
          ) : (
            <label>
              API key
              <input name="api-key" type="password" autocomplete="off" required autoFocus value={apiKey} onInput={(e) => setApiKey(e.currentTarget.value)} />
            </label>
          )}
          {error && <p role="alert" class="error-text">{error}</p>}
          <div class="row">
            <button type="submit" class="primary" aria-disabled={busy}>{busy ? 'Checking…' : mode === 'password' ? 'Log in' : 'Use key'}</button>
            <button type="button" onClick={close}>Cancel</button>
          </div>
        </form>
      </Tabs>
    </Dialog>
  );
}
