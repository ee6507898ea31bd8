// Cutting a provider's text to its length limit, shared by the channels whose providers count
// UTF-16 units (Telegram, Twilio).

/** At most `max` UTF-16 units, never splitting a surrogate pair, ending with an ellipsis when cut. */
export function cutUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  for (const ch of text) {
    if (out.length + ch.length > max - 1) break;
    out += ch;
  }
  return `${out}…`;
}
