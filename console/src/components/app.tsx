import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { buildOperations, type OperationEntry } from '../operations.ts';
import { draftFor, emptyDraft, isRpcPath, type Draft } from '../draft.ts';
import { send, type Outcome } from '../send.ts';
import { getCredential, onCredentialChange, setCredential, type Credential } from '../credentials.ts';
import { rememberIds } from '../placeholders.ts';
import { forgetShareToken, shareLinkInAddress, takeShareToken } from '../share-link.ts';
import { addToHistory, clearHistory, readHistory, type HistoryEntry } from '../history.ts';
import { ApiFailure, deleteSaved, draftOf, getShared, listSaved, logout, saveRequest, shareSaved, unshareSaved, type SavedRequest } from '../saved-api.ts';
import { OperationsList } from './operations-list.tsx';
import { SavedList } from './saved-list.tsx';
import { HistoryList } from './history-list.tsx';
import { RequestPane } from './request-pane.tsx';
import { ResponsePane } from './response-pane.tsx';
import { LoginDialog } from './login-dialog.tsx';
import { NameDialog } from './name-dialog.tsx';
import { SnippetsPanel } from './snippets-panel.tsx';
import { ComparePanel } from './compare-panel.tsx';
import { tabId, Tabs } from './tabs.tsx';
import { DeleteDialog } from './delete-dialog.tsx';

const LISTS = 'lists';
const LOGIN_BUTTON = 'login-button';
const LOGOUT_BUTTON = 'logout-button';
const SHARE_BUTTON = 'share-button';
const PUBLIC_PATHS = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json']);
const LOGOUT_PATHS = new Set(['/v1/logout', '/tms.v1.AccountService/Logout']);

/** The operation a draft is an instance of: an RPC by its path, a route by method and path template. */
function operationOf(operations: OperationEntry[], draft: Draft): OperationEntry | undefined {
  const path = draft.path.split('?')[0]!;
  if (isRpcPath(path)) return operations.find((op) => op.kind === 'rpc' && op.pathTemplate === path);
  const segments = path.split('/');
  return operations.find((op) => {
    if (op.kind !== 'rest' || op.method !== draft.method.toUpperCase()) return false;
    const template = op.pathTemplate.split('/');
    return template.length === segments.length && template.every((t, i) => t.startsWith('{') || t === segments[i]);
  });
}

const sameDraft = (a: Draft, b: Draft) => JSON.stringify(a) === JSON.stringify(b);

const unauthenticated = (outcome: Outcome) => outcome.status === 401 || outcome.error?.code === 'unauthenticated';

interface PendingLogin {
  retry(): Promise<Outcome | undefined>;
  resolve(outcome: Outcome | undefined): void;
}

export function App() {
  const [operations, setOperations] = useState<OperationEntry[]>([]);
  const [loadError, setLoadError] = useState('');
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState<string>();
  const initialDraft = useRef(emptyDraft()).current;
  const [draft, setDraft] = useState<Draft>(initialDraft);
  /** The draft of the latest render, for answers that arrive later. */
  const shownDraft = useRef(draft);
  shownDraft.current = draft;
  const [outcome, setOutcome] = useState<{ result: Outcome; sequence: number }>();
  const [sending, setSending] = useState(false);
  const [credential, setCredentialState] = useState<Credential | undefined>(getCredential);
  const [loginState, setLoginState] = useState({ open: false, reason: '' });
  const pending = useRef<PendingLogin>();
  const [sidebar, setSidebar] = useState<'operations' | 'saved' | 'history'>('operations');
  const [saved, setSaved] = useState<SavedRequest[]>([]);
  const [savedNext, setSavedNext] = useState('');
  const [savedError, setSavedError] = useState('');
  const [history, setHistory] = useState<HistoryEntry[]>(readHistory);
  const [tool, setTool] = useState<'snippets' | 'compare'>('snippets');
  const [nameDialog, setNameDialog] = useState({ open: false, error: '', thenShare: false });
  const [saving, setSaving] = useState(false);
  const saveUnderWay = useRef(false);
  const deleting = useRef(new Set<string>());
  const [current, setCurrent] = useState<SavedRequest>();
  const [shared, setShared] = useState<SavedRequest>();
  const [toDelete, setToDelete] = useState<SavedRequest>();
  // Where focus goes once the next render has the element: an action that removes the control it came from
  // (Log in, Log out, Unshare, a deleted row) would otherwise leave it on the page itself.
  const focusNext = useRef<string>();
  useEffect(() => {
    const target = focusNext.current && document.getElementById(focusNext.current);
    if (!target) return;
    focusNext.current = undefined;
    target.focus();
  });
  const [notice, setNotice] = useState('');
  // Read once: it moves the token out of the address bar.
  const [sharedAtStart] = useState(takeShareToken);
  const shareToken = useRef(sharedAtStart);

  useEffect(() => onCredentialChange(setCredentialState), []);

  useEffect(() => {
    fetch('/openapi.json', { credentials: 'omit' })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`GET /openapi.json answered ${response.status}`))))
      .then((doc: Record<string, unknown>) => {
        const list = buildOperations(doc);
        setOperations(list);
        const first = list.find((op) => op.rpc === 'tms.v1.EventService.SearchEvents' && op.kind === 'rest') ?? list[0];
        // A shared request opened before the list arrived, or anything typed meanwhile, stays.
        if (first && shownDraft.current === initialDraft) {
          setSelected(first.id);
          setDraft((shown) => (shown === initialDraft ? draftFor(first) : shown));
        }
      })
      .catch((error: Error) => setLoadError(`Could not load the operation list: ${error.message}`));
  }, []);

  const selectedEntry = useMemo(() => operationOf(operations, draft) ?? operations.find((op) => op.id === selected), [operations, draft, selected]);

  const needsAuth = useCallback(
    (d: Draft) => {
      const path = d.path.split('?')[0]!;
      if (PUBLIC_PATHS.has(path)) return false;
      return operationOf(operations, d)?.requiresAuth ?? true;
    },
    [operations],
  );

  const askLogin = (reason: string, retry: () => Promise<Outcome | undefined>): Promise<Outcome | undefined> =>
    new Promise((resolve) => {
      pending.current?.resolve(undefined);
      pending.current = { retry, resolve };
      setLoginState({ open: true, reason });
    });

  /** The number of the last send whose answer the response pane shows. */
  const lastShown = useRef(0);

  /** Sends one request: asks for a login first when it needs one, and again (then resends) on a 401. */
  const run = async (d: Draft, show = true): Promise<Outcome | undefined> => {
    if (needsAuth(d) && !getCredential()) return askLogin('Log in to send this request.', () => run(d, show));
    const sentWith = getCredential();
    const number = show ? ++lastShown.current : 0;
    if (show) setSending(true);
    let result: Outcome;
    try {
      result = await send(d);
    } finally {
      if (show && number === lastShown.current) setSending(false);
    }
    if (show) {
      // An earlier send that answers late goes to the history only; the pane keeps the latest.
      if (number === lastShown.current) setOutcome((previous) => ({ result, sequence: (previous?.sequence ?? 0) + 1 }));
      if (result.kind !== 'refused') setHistory(addToHistory({ draft: d, statusLine: result.statusLine, ok: result.ok, elapsedMs: result.elapsedMs, sentAt: new Date().toISOString() }));
    }
    if (result.ok) rememberIds(result.body);
    // What the answer says about the credential holds only for the one it was sent with, not for a login since.
    const stillHeld = sentWith !== undefined && getCredential()?.token === sentWith.token;
    if (result.ok && LOGOUT_PATHS.has(d.path.split('?')[0]!) && stillHeld && sentWith.kind === 'session') {
      // That request ended the session this console was using.
      setCredential(undefined);
      setNotice('Logged out: the request ended this console\'s session.');
    }
    if (unauthenticated(result) && needsAuth(d) && stillHeld) {
      setCredential(undefined);
      return askLogin('Your session has expired or your credential was refused. Log in again and the request is sent again.', () => run(d, show));
    }
    return result;
  };

  /** Send, Ctrl+Enter and the editor's Ctrl+Enter: nothing while the last one is under way. */
  const sendDraft = () => {
    if (!sending) void run(draft);
  };

  // Set on every render and read when the key is pressed. A listener added by an effect would hold the draft of
  // the render before it until the effect ran, which can be after the next frame: a quick Ctrl+Enter after
  // choosing an operation would send the previous operation's request.
  const onSendKey = useRef<(event: KeyboardEvent) => void>();
  onSendKey.current = (event) => {
    // Not while a dialog is open: its own form is what the keys are for, and the request behind it may write.
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !event.defaultPrevented && !document.querySelector('dialog[open]')) {
      event.preventDefault();
      sendDraft();
    }
  };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => onSendKey.current?.(event);
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  /** Counts loads of the saved list from its first page: a page asked for before the latest one is dropped. */
  const savedLoads = useRef(0);
  /** The load whose page the "More" token (`savedNext`) continues. */
  const savedNextOf = useRef(0);
  const loadingMore = useRef(false);

  const loadSaved = async (pageToken = '') => {
    const held = getCredential();
    // "More" waits while the list loads from its first page again: its token belongs to the list being replaced.
    if (!held || (pageToken && (loadingMore.current || savedNextOf.current !== savedLoads.current))) return;
    const load = pageToken ? savedLoads.current : ++savedLoads.current;
    if (pageToken) loadingMore.current = true;
    const current = () => load === savedLoads.current && getCredential()?.token === held.token;
    try {
      const page = await listSaved(pageToken);
      if (!current()) return;
      setSaved((previous) => (pageToken ? [...previous, ...page.saved_requests] : page.saved_requests));
      setSavedNext(page.next_page_token);
      savedNextOf.current = load;
      setSavedError('');
    } catch (error) {
      if (current()) setSavedError(error instanceof ApiFailure ? error.info.message : String(error));
    } finally {
      if (pageToken) loadingMore.current = false;
    }
  };

  const openShared = async (token: string) => {
    try {
      const request = await getShared(token);
      forgetShareToken();
      setShared(request);
      setCurrent(undefined);
      setSelected(undefined);
      setDraft(draftOf(request));
      setNotice(`Opened “${request.name}”, shared by ${request.owner}. Send it, or save a copy.`);
    } catch (error) {
      const gone = error instanceof ApiFailure && error.status === 404;
      if (gone) forgetShareToken();
      setNotice(gone ? 'This share link no longer works: its owner unshared or deleted it.' : `Could not open the share link: ${String(error)}`);
    }
  };

  /** A share link met now: opened at once when logged in, else after the login it asks for. */
  const meetShareLink = () => {
    if (!shareLinkInAddress()) return;
    const token = takeShareToken();
    if (!token) return;
    if (getCredential()) {
      shareToken.current = undefined;
      void openShared(token);
      return;
    }
    shareToken.current = token;
    setLoginState({ open: true, reason: 'Log in to open the request that was shared with you.' });
  };

  useEffect(() => {
    if (!credential) {
      savedLoads.current++;
      setSaved([]);
      setSavedNext('');
      return;
    }
    void loadSaved();
    const token = shareToken.current;
    if (token) {
      shareToken.current = undefined;
      void openShared(token);
    }
  }, [credential?.token]);

  useEffect(() => {
    if (shareToken.current && !getCredential()) setLoginState({ open: true, reason: 'Log in to open the request that was shared with you.' });
    // A link pasted into this tab while the console is open changes only the hash.
    window.addEventListener('hashchange', meetShareLink);
    return () => window.removeEventListener('hashchange', meetShareLink);
  }, []);

  const onLoggedIn = () => {
    setLoginState({ open: false, reason: '' });
    const waiting = pending.current;
    pending.current = undefined;
    if (waiting) void waiting.retry().then(waiting.resolve);
    // A waiting request's Send takes focus back; the header's Log in is gone, replaced by Log out.
    else focusNext.current = LOGOUT_BUTTON;
  };

  const closeLogin = () => {
    setLoginState({ open: false, reason: '' });
    pending.current?.resolve(undefined);
    pending.current = undefined;
    if (shareToken.current && !getCredential()) setNotice('A request shared with you is waiting: log in to open it.');
  };

  const doLogout = async () => {
    const held = getCredential();
    if (held?.kind === 'session') {
      try {
        await logout();
      } catch {
        // An expired session is already over on the server; forgetting it here is all that is left.
      }
    }
    setCredential(undefined);
    setCurrent(undefined);
    setNotice('Logged out.');
    focusNext.current = LOGIN_BUTTON;
  };

  const withLogin = (reason: string, action: () => void) => {
    if (getCredential()) return action();
    void askLogin(reason, async () => {
      action();
      return undefined;
    });
  };

  /** Shares or unshares a saved request and shows the outcome. */
  const setSharing = async (request: SavedRequest, sharing: boolean) => {
    try {
      const updated = await (sharing ? shareSaved : unshareSaved)(request.id);
      setCurrent((shown) => (shown?.id === updated.id ? updated : shown));
      setSaved((list) => list.map((s) => (s.id === updated.id ? updated : s)));
      setNotice(sharing ? 'Share link ready: anyone you give it to must log in to open it.' : 'Unshared: the old link no longer opens it.');
      if (!sharing) focusNext.current = SHARE_BUTTON;
    } catch (error) {
      setNotice(`Could not ${sharing ? 'share' : 'unshare'}: ${error instanceof ApiFailure ? error.info.message : String(error)}`);
    }
  };

  const saveAs = async (name: string) => {
    // A ref, not the state: a second click may come before the render that disables the button.
    if (saveUnderWay.current) return;
    saveUnderWay.current = true;
    setSaving(true);
    try {
      const savedRequest = await saveRequest(name, draft);
      setCurrent(savedRequest);
      setShared(undefined);
      const thenShare = nameDialog.thenShare;
      setNameDialog({ open: false, error: '', thenShare: false });
      setNotice(`Saved “${savedRequest.name}”.`);
      await loadSaved();
      if (thenShare) await setSharing(savedRequest, true);
    } catch (error) {
      setNameDialog((state) => ({ ...state, error: error instanceof ApiFailure ? error.info.message : String(error) }));
    } finally {
      saveUnderWay.current = false;
      setSaving(false);
    }
  };

  const onShare = () =>
    withLogin('Log in to share a request.', () => {
      if (current && sameDraft(draftOf(current), draft)) void setSharing(current, true);
      else setNameDialog({ open: true, error: '', thenShare: true });
    });

  const onDelete = async (request: SavedRequest) => {
    // A second click while the first is under way would find it gone.
    if (deleting.current.has(request.id)) return;
    deleting.current.add(request.id);
    try {
      await deleteSaved(request.id);
      setCurrent((shown) => (shown?.id === request.id ? undefined : shown));
      setSaved((list) => list.filter((s) => s.id !== request.id));
      setNotice(`Deleted “${request.name}”.`);
      focusNext.current = tabId(LISTS, 'saved');
    } catch (error) {
      setNotice(`Could not delete: ${error instanceof ApiFailure ? error.info.message : String(error)}`);
    } finally {
      deleting.current.delete(request.id);
    }
  };

  /** A request sent before is no saved or shared one, whatever was shown. */
  const restoreFromHistory = (entry: HistoryEntry) => {
    setDraft(entry.draft);
    setCurrent(undefined);
    setShared(undefined);
  };

  const choose = (entry: OperationEntry) => {
    setSelected(entry.id);
    setDraft(draftFor(entry));
    setCurrent(undefined);
    setShared(undefined);
  };

  const shareLink = current?.share_token ? `${location.origin}/console#share=${current.share_token}` : '';

  return (
    <div class="layout">
      <a class="skip-link" href="#request">Skip to the request</a>
      <header class="topbar">
        <h1>tms console</h1>
        <span class="muted">Time-Manipulation Service</span>
        <span class="spacer" />
        {credential ? (
          <>
            <span aria-label="Logged in as">{credential.kind === 'session' ? `${credential.username}` : `API key (${credential.username})`}</span>
            <button type="button" id={LOGOUT_BUTTON} onClick={() => void doLogout()}>Log out</button>
          </>
        ) : (
          <button type="button" id={LOGIN_BUTTON} onClick={() => setLoginState({ open: true, reason: '' })}>Log in</button>
        )}
      </header>
      <nav class="sidebar" aria-label="Requests">
        <Tabs
          label="Lists"
          idPrefix={LISTS}
          tabs={[
            { id: 'operations', label: 'Operations' },
            { id: 'saved', label: `Saved${saved.length ? ` (${saved.length})` : ''}` },
            { id: 'history', label: 'History' },
          ]}
          selected={sidebar}
          onSelect={setSidebar}
        >
          {loadError && <p role="alert" class="error-text">{loadError}</p>}
          {sidebar === 'operations' && <OperationsList operations={operations} loading={operations.length === 0 && !loadError} filter={filter} onFilter={setFilter} selected={selectedEntry?.id} onChoose={choose} />}
          {sidebar === 'saved' && (
            <SavedList
              loggedIn={!!credential}
              items={saved}
              hasMore={!!savedNext}
              error={savedError}
              onOpen={(request) => {
                setCurrent(request);
                setShared(undefined);
                setDraft(draftOf(request));
              }}
              onDelete={setToDelete}
              onMore={() => void loadSaved(savedNext)}
            />
          )}
          {sidebar === 'history' && (
            <HistoryList
              entries={history}
              onRestore={restoreFromHistory}
              onClear={() => {
                setHistory(clearHistory());
                focusNext.current = tabId(LISTS, 'history');
              }}
            />
          )}
        </Tabs>
      </nav>
      <main class="main" id="request" tabIndex={-1}>
        {selectedEntry && (
          <p class="summary">
            <strong>{selectedEntry.kind === 'rpc' ? selectedEntry.rpc : selectedEntry.title}</strong> {selectedEntry.summary}
          </p>
        )}
        {current && (
          <p class="muted">{sameDraft(draftOf(current), draft) ? `Saved request: “${current.name}”` : `Changed from saved request “${current.name}” (not saved)`}</p>
        )}
        {shared && (
          <p class="notice">
            Shared with you by <strong>{shared.owner}</strong>: “{shared.name}”{' '}
            <button type="button" class="small" onClick={() => setNameDialog({ open: true, error: '', thenShare: false })}>Save a copy</button>
          </p>
        )}
        <RequestPane draft={draft} onChange={setDraft} schema={selectedEntry?.schema} onSend={sendDraft} sending={sending} loggedIn={!!credential} />
        <div class="row actions">
          <button type="button" onClick={() => withLogin('Log in to save requests to your account.', () => setNameDialog({ open: true, error: '', thenShare: false }))}>Save</button>
          <button type="button" id={SHARE_BUTTON} onClick={onShare}>Share</button>
          {shareLink && (
            <>
              <label class="grow">
                Share link
                <input readOnly value={shareLink} onFocus={(e) => e.currentTarget.select()} />
              </label>
              <button type="button" onClick={() => current && void setSharing(current, false)}>Unshare</button>
            </>
          )}
        </div>
        {notice && <p role="status" class="notice">{notice}</p>}
        <ResponsePane outcome={outcome?.result} sequence={outcome?.sequence ?? 0} sending={sending} />
        <section class="tools" aria-label="Tools">
          <Tabs
            label="Tools"
            idPrefix="tools"
            tabs={[
              { id: 'snippets', label: 'Snippets' },
              { id: 'compare', label: 'Compare' },
            ]}
            selected={tool}
            onSelect={setTool}
          >
            {tool === 'snippets' ? <SnippetsPanel draft={draft} /> : <ComparePanel draft={draft} saved={saved} run={(d) => run(d, false)} />}
          </Tabs>
        </section>
      </main>
      <LoginDialog open={loginState.open} reason={loginState.reason} onClose={closeLogin} onLoggedIn={onLoggedIn} />
      <DeleteDialog
        request={toDelete}
        onConfirm={(request) => {
          setToDelete(undefined);
          void onDelete(request);
        }}
        onClose={() => setToDelete(undefined)}
      />
      <NameDialog
        open={nameDialog.open}
        title={nameDialog.thenShare ? 'Save and share' : 'Save request'}
        initial={shared?.name ?? current?.name ?? selectedEntry?.title ?? ''}
        error={nameDialog.error}
        busy={saving}
        onSubmit={(name) => void saveAs(name)}
        onClose={() => setNameDialog({ open: false, error: '', thenShare: false })}
      />
    </div>
  );
}
