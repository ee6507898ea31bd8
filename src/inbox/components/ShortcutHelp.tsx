// The help overlay for the keyboard shortcuts (`?`), listed from lib/shortcuts.ts. A modal
// dialog: focus moves to it, Escape or its button closes it and focus returns where it was.
import { useEffect, useRef } from 'react';
import { SHORTCUTS } from '../lib/shortcuts.ts';

export function ShortcutHelp({ onClose }: { onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    const before = document.activeElement as HTMLElement | null;
    if (!d.open) d.showModal();
    return () => before?.focus({ preventScroll: true });
  }, []);
  return (
    <dialog ref={dialog} className="shortcut-help" aria-labelledby="shortcut-help-title" onClose={onClose}>
      <h2 id="shortcut-help-title">Keyboard shortcuts</h2>
      <dl>
        {SHORTCUTS.map((s) => (
          <div key={s.key} className="shortcut">
            <dt>
              <kbd>{s.key}</kbd>
            </dt>
            <dd>{s.does}</dd>
          </div>
        ))}
      </dl>
      <p className="hint">
        Shortcuts act on the card that has focus; they do nothing while you type in a field.
      </p>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </dialog>
  );
}
