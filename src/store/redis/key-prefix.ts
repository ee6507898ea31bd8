// Redis Cluster runs a script only when all its keys hash to one slot. A key's slot comes from
// its hash tag (the text between the first `{` and the next `}`, when not empty), so every key
// of a deployment carries the same tag. A prefix that has a tag keeps it; otherwise the whole
// prefix becomes the tag: `tai:` → `{tai:}`.
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  if (open < 0) return false;
  const close = prefix.indexOf('}', open + 1);
  return close > open + 1;
}

export function hashTaggedPrefix(prefix: string): string {
  return hasHashTag(prefix) ? prefix : `{${prefix}}`;
}
