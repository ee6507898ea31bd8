// Question text is untrusted: in Slack's mrkdwn `<!channel>`, `<@U…>` and `<url|label>` are
// control sequences, so `&`, `<` and `>` are escaped and nothing an agent writes can mention or link.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

export function escapeMrkdwn(text: string): string {
  return text.replace(/[&<>]/g, (c) => ENTITIES[c]!);
}

/** Escaped text cut into pieces of at most `max` characters, never inside an entity or a surrogate pair. */
export function escapedChunks(text: string, max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const ch of text) {
    const piece = ENTITIES[ch] ?? ch;
    if (current.length + piece.length > max) {
      chunks.push(current);
      current = '';
    }
    current += piece;
  }
  if (current !== '' || chunks.length === 0) chunks.push(current);
  return chunks;
}

/**
 * Escaped text of at most `max` characters, cut after escaping (an `&` becomes five), never inside
 * an entity or a surrogate pair, ending with an ellipsis when cut.
 */
export function escapedCut(text: string, max: number): string {
  const whole = escapeMrkdwn(text);
  if (whole.length <= max) return whole;
  return `${escapedChunks(text, max - 1)[0]}…`;
}

/** Plain text cut to `max` characters (Slack's limits on button and option labels), with an ellipsis. */
export function cut(text: string, max: number): string {
  // Never more code points than UTF-16 units: most labels need no splitting.
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
