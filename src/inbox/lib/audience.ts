// Whom a card is addressed to, as a person reads it (API.md §22): "for you" or "for alice" for a
// person, "to group:payments" for a group, "on call: payments → alice" for an on-call rotation
// (who is on duty for it, `routedTo`), and "for alice" beside it when the viewer receives the
// on-duty person's questions as their delegate.
import type { Question, Viewer } from './model.ts';

export interface AudienceBadge {
  text: string;
  /** Receiving it as someone's delegate (styled apart from the plain audience). */
  delegate: boolean;
  /** The identity behind the words, for the tooltip. */
  title: string;
}

const GROUP = 'group:';
const ONCALL = 'oncall:';

function person(id: string, viewer: Viewer): AudienceBadge {
  if (id === viewer.id) return { text: 'for you', delegate: false, title: id };
  const delegate = viewer.actingFor?.includes(id) ?? false;
  return {
    text: `for ${id}`,
    delegate,
    title: delegate ? `You receive ${id}'s questions while they are away` : id,
  };
}

export function audienceBadges(q: Pick<Question, 'audience' | 'routedTo'>, viewer: Viewer): AudienceBadge[] {
  const audience = q.audience;
  if (!audience) return [];
  if (audience.startsWith(GROUP)) return [{ text: `to ${audience}`, delegate: false, title: audience }];
  if (audience.startsWith(ONCALL)) {
    const group = audience.slice(ONCALL.length);
    const duty = q.routedTo;
    if (!duty) return [{ text: `on call: ${group} → nobody on duty`, delegate: false, title: audience }];
    const routed = {
      text: `on call: ${group} → ${duty === viewer.id ? 'you' : duty}`,
      delegate: false,
      title: `${audience}: ${duty} is on duty`,
    };
    const forWhom = person(duty, viewer);
    return forWhom.delegate ? [routed, forWhom] : [routed];
  }
  return [person(audience, viewer)];
}
