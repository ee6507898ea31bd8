// The words a person types for yes and for no: one vocabulary for every door that reads words as
// a CONFIRM answer or an APPROVAL decision (texts, e-mail replies, the CLI's --answer), so "ok"
// approves by mail exactly as it does by text. Import-free: the CLI loads it too.

/** Yes: approves an APPROVAL, answers a CONFIRM with true. */
export const YES_WORDS: readonly string[] = [
  'y',
  'yes',
  'yep',
  'yeah',
  'ok',
  'okay',
  'sure',
  'approve',
  'approved',
  'confirm',
  'confirmed',
  'true',
  '👍',
  '✅',
];

/** No: rejects an APPROVAL, answers a CONFIRM with false. */
export const NO_WORDS: readonly string[] = [
  'n',
  'no',
  'nope',
  'nah',
  'deny',
  'denied',
  'reject',
  'rejected',
  'decline',
  'declined',
  'false',
  '👎',
  '❌',
];

const YES = new Set(YES_WORDS);
const NO = new Set(NO_WORDS);

/**
 * True for a yes word, false for a no word, undefined for anything else. Case, surrounding spaces
 * and a trailing full stop or exclamation mark do not count ("Yes!", " OK. ").
 */
export function yesOrNo(text: string): boolean | undefined {
  const word = text
    .trim()
    .toLowerCase()
    .replace(/[.!]+$/, '');
  if (YES.has(word)) return true;
  if (NO.has(word)) return false;
  return undefined;
}
