// What every addressed channel repeats about recipients (API.md §9): a question without one goes
// to the channel's `defaultRecipient`, the ask is refused when the medium cannot address the one
// given, and delivery uses the question's recipient (already defaulted by the engine).

/** The ChannelInstance fields of a channel that must be told whom to send to. */
export function addressedBy(
  check: (recipient: string) => string | null,
  defaultRecipient: string | undefined,
): { defaultRecipient?: string; needsRecipient: true; checkRecipient(recipient: string): string | null } {
  return { ...(defaultRecipient ? { defaultRecipient } : {}), needsRecipient: true, checkRecipient: check };
}

/** Whom `deliver` sends to; the engine refuses an ask with neither, so this throws only on a bug. */
export function recipientOf(
  question: { recipient: string | null },
  defaultRecipient: string | undefined,
): string {
  const recipient = question.recipient ?? defaultRecipient;
  if (!recipient) throw new Error('no recipient and no defaultRecipient');
  return recipient;
}
