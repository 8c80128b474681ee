/**
 * A share link's token (`/console#share=<token>`), from the moment the page sees it until the request it names is
 * open. It leaves the address bar at once (bookmarks, screenshots) and waits in the tab's sessionStorage, so that a
 * reload, or a login put off, does not lose it.
 */
const STORAGE_KEY = 'tms.console.share';
const SHARE_HASH = /^#share=([\w-]+)$/;

/** Whether the address bar holds a share link's token now (other fragments, such as `#request`, are not one). */
export const shareLinkInAddress = (): boolean => SHARE_HASH.test(location.hash);

/** The token the address bar holds now, if any, moved out of it; else the one still waiting. */
export function takeShareToken(): string | undefined {
  const match = SHARE_HASH.exec(location.hash);
  if (match) {
    history.replaceState(null, '', location.pathname + location.search);
    sessionStorage.setItem(STORAGE_KEY, match[1]!);
  }
  return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
}

/** The request was opened, or its link no longer works: nothing waits any more. */
export const forgetShareToken = (): void => sessionStorage.removeItem(STORAGE_KEY);
