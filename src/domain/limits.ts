// Wire-contract caps (API.md §5) and how they are measured. Caps are constants, not settings.
// Lengths count Unicode code points; the schema cap counts UTF-8 bytes of the serialized JSON.

export const MEDIA_MAX_ITEMS = 8;
export const MEDIA_URL_MAX_CHARS = 8192;
export const MEDIA_DATA_URI_MAX_CHARS = 524288;
export const MEDIA_CAPTION_MAX_CHARS = 1000;
export const MEDIA_TOTAL_URI_CHARS = 1048576;
export const TEXT_MAX_CHARS = 8192;
export const OPTIONS_MIN = 1;
export const OPTIONS_MAX = 100;
export const OPTION_MAX_CHARS = 500;
export const SCHEMA_MAX_BYTES = 65536;
export const TIMEOUT_MIN_SECONDS = 1;
export const TIMEOUT_MAX_SECONDS = 31536000;
/** audience, groupId, recipient, idempotencyKey. */
export const LABEL_MAX_CHARS = 256;
export const JSON_MAX_DEPTH = 64;
/** An EXTERNAL `link` template (before `{callback_url}` is substituted). */
export const LINK_MAX_CHARS = 8192;
/** A TEXT answer. */
export const ANSWER_TEXT_MAX_CHARS = 65536;
/** A verifier's `config` object, serialized. */
export const VERIFIER_CONFIG_MAX_BYTES = 65536;
/** `metadata` of an ask: its JSON encoding, in UTF-8 bytes (API.md §12). */
export const METADATA_MAX_BYTES = 4096;

/** Number of Unicode code points in `s` (a lone surrogate counts as one). */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** True when `s` has more than `max` code points, without scanning huge strings. */
export function exceedsChars(s: string, max: number): boolean {
  if (s.length <= max) return false;
  if (s.length > max * 2) return true;
  return codePointLength(s) > max;
}

/** UTF-8 byte length of `s` (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8ByteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

const VISIBLE = /[^\s\p{Cc}\p{Cf}]/u;

/** Blank: empty, or only whitespace, control and invisible format characters (e.g. U+200B). */
export function isBlank(s: string): boolean {
  return !VISIBLE.test(s);
}

/** APPROVAL (API.md §15): an action's name, summary and arguments, the answer's note, quorum. */
export const ACTION_NAME_MAX_CHARS = 100;
export const ACTION_SUMMARY_MAX_CHARS = 300;
export const ACTION_ARGUMENTS_MAX_BYTES = 65536;
export const APPROVAL_NOTE_MAX_CHARS = 2000;
/** `action.executors` (API.md §23): identities that may consume the approval besides the asker. */
export const ACTION_EXECUTORS_MAX = 10;
/** `action.validSeconds` (API.md §23): how long an approval may be used, counted from the decision. */
export const ACTION_VALID_SECONDS_MIN = 1;
export const ACTION_VALID_SECONDS_MAX = 2_592_000;
/** `reportExecution`'s `detail` (API.md §23), as UTF-8 JSON. */
export const EXECUTION_DETAIL_MAX_BYTES = 8192;
export const QUORUM_MIN = 1;
export const QUORUM_MAX = 20;
/** `quorum.voters`: entries, each a label (LABEL_MAX_CHARS). The contract names no cap. */
export const QUORUM_VOTERS_MAX = 100;
