// The inbox's keyboard shortcuts (issue 44 item 3), as data: which key does what, for the handler
// (components/use-shortcuts.ts) and for the help overlay, so the two cannot disagree.

export type ShortcutAction = 'next' | 'previous' | 'approve' | 'reject' | 'edit' | 'help';

export interface Shortcut {
  key: string;
  action: ShortcutAction;
  /** What the help overlay says it does. */
  does: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { key: 'j', action: 'next', does: 'Next question' },
  { key: 'k', action: 'previous', does: 'Previous question' },
  { key: 'a', action: 'approve', does: 'Approve (Yes) the current question' },
  { key: 'r', action: 'reject', does: 'Reject (No) the current question' },
  { key: 'e', action: 'edit', does: "Edit the current approval's arguments" },
  { key: '?', action: 'help', does: 'Show or hide this help' },
];

const BY_KEY = new Map(SHORTCUTS.map((s) => [s.key, s.action]));

/** The buttons a shortcut presses carry `data-shortcut` with one of these. */
export type ShortcutButton = Extract<ShortcutAction, 'approve' | 'reject' | 'edit'>;

/** Whether focus is where typing goes: a letter there is text, not a shortcut. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (target as HTMLInputElement).type;
  return !['button', 'checkbox', 'radio', 'submit', 'reset'].includes(type);
}

/** The action for a key press, or null: modifiers (but Shift, for `?`) and typing leave it alone. */
export function shortcutFor(
  e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'target'>,
): ShortcutAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target)) return null;
  return BY_KEY.get(e.key) ?? null;
}
