// The inbox renders media only when the API contract (API.md §5.2) accepts it, by the contract's
// own validator; everything else is shown as blocked.
import { describe, expect, it } from 'vitest';
import { checkMedia, hostOf, safeLink } from '../../src/inbox/lib/media.ts';

const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('checkMedia', () => {
  it('admits https and data:image images, and http(s) links, with their captions', () => {
    expect(checkMedia({ kind: 'IMAGE', url: 'https://cdn.example.com/a.png', caption: 'Chart' })).toEqual({
      ok: true,
      kind: 'IMAGE',
      url: 'https://cdn.example.com/a.png',
      caption: 'Chart',
    });
    expect(checkMedia({ kind: 'IMAGE', url: PNG, caption: null })).toMatchObject({ ok: true, caption: null });
    expect(checkMedia({ kind: 'LINK', url: 'http://intranet.example/doc' })).toMatchObject({ ok: true });
  });

  it.each([
    ['IMAGE', 'http://example.com/a.png'],
    ['IMAGE', 'javascript:alert(1)'],
    ['IMAGE', 'data:text/html;base64,PHNjcmlwdD4='],
    ['IMAGE', 'data:image/svg+xml;base64,PHN2Zz4='],
    ['IMAGE', 'data:image/png;base64,'],
    ['IMAGE', '//example.com/a.png'],
    ['IMAGE', '/api/media/x'],
    ['LINK', 'javascript:alert(document.domain)'],
    ['LINK', 'data:text/html,hi'],
    ['LINK', 'https://user:pw@example.com/'],
    ['LINK', 'https://999.999.999.999/'],
    ['LINK', 'https://exa mple.com/'],
    ['LINK', 'https://example.com/\u202e'],
    ['LINK', 'ftp://example.com/'],
    ['VIDEO', 'https://example.com/a.mp4'],
  ])('blocks %s %s with a reason', (kind, url) => {
    const view = checkMedia({ kind, url, caption: 'x' });
    expect(view.ok).toBe(false);
    expect(view.ok === false && view.reason.length).toBeGreaterThan(0);
  });

  it('blocks a blank caption and an over-long URL, as the contract does', () => {
    expect(checkMedia({ kind: 'LINK', url: 'https://example.com/', caption: '  ' }).ok).toBe(false);
    expect(checkMedia({ kind: 'LINK', url: `https://example.com/${'a'.repeat(8200)}` }).ok).toBe(false);
  });
});

describe('links', () => {
  it('safeLink admits absolute http(s) URLs only', () => {
    expect(
      safeLink('https://pay.example.com/x?cb=http://127.0.0.1:4000/api/interactions/callback/abc'),
    ).not.toBeNull();
    expect(safeLink('javascript:alert(1)')).toBeNull();
    expect(safeLink('https://user@example.com/')).toBeNull();
    expect(safeLink(null)).toBeNull();
  });

  it('hostOf names where a link leads', () => {
    expect(hostOf('https://docs.example.com:8443/a')).toBe('docs.example.com:8443');
    expect(hostOf('not a url')).toBeNull();
  });
});
