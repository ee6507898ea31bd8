// The settings menu (issue 44 item 1): who is signed in, notifications on this device, and sign
// out, behind one button, so on a phone the header is one line and the first question is on the
// first screen. A disclosure, not an ARIA menu: it holds ordinary controls, Tab moves through
// them, Escape and a click outside close it and give focus back to the button.
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { plainId } from './hooks.ts';

export function SettingsMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = plainId(useId());
  const root = useRef<HTMLDivElement | null>(null);
  const button = useRef<HTMLButtonElement | null>(null);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape') return;
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (e: PointerEvent): void => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('pointerdown', onPointer);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('pointerdown', onPointer);
    };
  }, [open]);

  return (
    <div className="settings-menu" ref={root}>
      <button
        ref={button}
        type="button"
        className="quiet settings-toggle"
        aria-expanded={open}
        aria-controls={`${id}-panel`}
        onClick={() => setOpen(!open)}
      >
        Settings
      </button>
      <div id={`${id}-panel`} className="settings-panel" hidden={!open}>
        {children}
      </div>
    </div>
  );
}
