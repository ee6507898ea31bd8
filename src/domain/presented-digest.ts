// The digest of what an approver was shown (API.md §23): the `sha256:` of the JCS of the
// presentation object's {name, summary, arguments}. Apart from presentation.ts because the digest
// needs node:crypto and the inbox, which renders from the same presentation object, must not.
import { jcsDigest } from './digest.ts';
import type { Presentation } from './presentation.ts';

/** `sha256:` of the JCS of {name, summary, arguments} as shown (API.md §23). */
export function presentedDigestOf(p: Presentation): string {
  return jcsDigest({ name: p.name, summary: p.summary, arguments: p.arguments });
}
