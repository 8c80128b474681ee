import type { ComponentChildren } from 'preact';

/** The element id of a tab, for moving focus to it from elsewhere. */
export const tabId = (idPrefix: string, id: string): string => `${idPrefix}-tab-${id}`;

export interface Tab<T extends string> {
  id: T;
  label: ComponentChildren;
}

interface TabsProps<T extends string> {
  /** What the tab list is for, as assistive technology announces it. */
  label: string;
  /** Unique on the page: ties each tab to the panel it shows. */
  idPrefix: string;
  tabs: readonly Tab<NoInfer<T>>[];
  selected: T;
  onSelect(id: NoInfer<T>): void;
  /**
   * Whether the panel takes its tab's label as its name (true unless said). Not where a field in the panel has that
   * name: the login's "API key" panel would share its name with the "API key" field.
   */
  namedPanel?: boolean;
  /** The shown tab's content. */
  children: ComponentChildren;
}

/** Keys that move along a tab list, as the WAI-ARIA tabs pattern has them; a move also selects (automatic activation). */
const MOVES: Record<string, (index: number, count: number) => number> = {
  ArrowRight: (index, count) => (index + 1) % count,
  ArrowLeft: (index, count) => (index - 1 + count) % count,
  Home: () => 0,
  End: (_index, count) => count - 1,
};

/**
 * A tab list and the panel of its selected tab. Only the selected tab is in the Tab order; the arrow keys, Home
 * and End move between tabs.
 */
export function Tabs<T extends string>({ label, idPrefix, tabs, selected, onSelect, namedPanel = true, children }: TabsProps<T>) {
  const idOf = (id: T) => tabId(idPrefix, id);
  const panelId = `${idPrefix}-panel`;
  const onKeyDown = (event: KeyboardEvent) => {
    const move = MOVES[event.key];
    if (!move) return;
    event.preventDefault();
    const next = tabs[move(tabs.findIndex((tab) => tab.id === selected), tabs.length)]!;
    onSelect(next.id);
    document.getElementById(idOf(next.id))?.focus();
  };
  return (
    <>
      <div class="tabs" role="tablist" aria-label={label} onKeyDown={onKeyDown}>
        {tabs.map((tab) => {
          const isSelected = tab.id === selected;
          return (
            <button
              key={tab.id}
              type="button"
              role="tab"
              id={idOf(tab.id)}
              aria-selected={isSelected}
              aria-controls={isSelected ? panelId : undefined}
              tabIndex={isSelected ? 0 : -1}
              onClick={() => onSelect(tab.id)}
            >
              {tab.label}
            </button>
          );
        })}
      </div>
      <div role="tabpanel" id={panelId} aria-labelledby={namedPanel ? idOf(selected) : undefined}>
        {children}
      </div>
    </>
  );
}
