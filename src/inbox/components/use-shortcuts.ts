// Keyboard operation of the pending list (issue 44 item 3): j/k move between cards, a/r/e press the
// current card's Approve (Yes) / Reject (No) / Edit button, ? shows the help. The buttons are
// found by their `data-shortcut`, so a shortcut does exactly what the click does (the same
// handler, the same checks) and a card without such a button ignores the key.
import { useEffect } from 'react';
import { shortcutFor } from '../lib/shortcuts.ts';

const CARDS = '#panel-pending article[data-question-id]';

/** The card holding focus, if any. */
function currentCard(): HTMLElement | null {
  const active = document.activeElement;
  return active instanceof HTMLElement ? active.closest<HTMLElement>(CARDS) : null;
}

function move(step: 1 | -1): void {
  const cards = Array.from(document.querySelectorAll<HTMLElement>(CARDS));
  if (cards.length === 0) return;
  const at = currentCard();
  const index = at ? cards.indexOf(at) : -1;
  const next = cards[index === -1 ? (step === 1 ? 0 : cards.length - 1) : index + step];
  if (!next) return;
  // The list is virtualized: bringing the card into view renders the rows beyond it.
  next.focus({ preventScroll: true });
  next.scrollIntoView({ block: 'nearest' });
}

function press(which: 'approve' | 'reject' | 'edit'): void {
  const card = currentCard();
  const button = card?.querySelector<HTMLButtonElement>(`button[data-shortcut="${which}"]`);
  if (button && !button.disabled) button.click();
}

export function useShortcuts({ active, toggleHelp }: { active: boolean; toggleHelp(): void }): void {
  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent): void => {
      const action = shortcutFor(e);
      if (action === null) return;
      e.preventDefault();
      if (action === 'next') move(1);
      else if (action === 'previous') move(-1);
      else if (action === 'help') toggleHelp();
      else press(action);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [active, toggleHelp]);
}
