import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import {
  MEDIA_CAPTION_MAX_CHARS,
  MEDIA_DATA_URI_MAX_CHARS,
  MEDIA_MAX_ITEMS,
  MEDIA_TOTAL_URI_CHARS,
  MEDIA_URL_MAX_CHARS,
} from '../../src/domain/limits.ts';
import { validateMedia } from '../../src/domain/media.ts';
import { expectBad } from '../support/domain-errors.ts';

const F = 'input.media';
const PNG_1X1 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const PNG_URI = `data:image/png;base64,${PNG_1X1}`;
const HTTPS = 'https://example.com/'; // 20 characters

const image = (url: string) => [{ kind: 'IMAGE', url }];
const link = (url: string) => [{ kind: 'LINK', url }];
/** A valid `data:image/png` URI of exactly `n` characters (22-character prefix, unpadded base64). */
const dataUriOf = (n: number) => `data:image/png;base64,${'A'.repeat(n - 22)}`;
const httpsOf = (n: number) => `${HTTPS}${'a'.repeat(n - HTTPS.length)}`;

describe('validateMedia: the list', () => {
  it('normalizes items to {kind, url, caption?}', () => {
    expect(
      validateMedia(
        [
          { kind: 'IMAGE', url: 'https://example.com/a.png', caption: 'A chart' },
          { kind: 'LINK', url: 'http://example.com/doc', caption: null },
          { kind: 'LINK', url: 'https://example.com/doc' },
        ],
        F,
      ),
    ).toEqual([
      { kind: 'IMAGE', url: 'https://example.com/a.png', caption: 'A chart' },
      { kind: 'LINK', url: 'http://example.com/doc' },
      { kind: 'LINK', url: 'https://example.com/doc' },
    ]);
    const [second] = validateMedia([{ kind: 'LINK', url: HTTPS, caption: null }], F);
    expect(second && 'caption' in second).toBe(false);
  });

  it('rejects a value that is not a list', () => {
    for (const bad of [null, undefined, 'https://example.com', { kind: 'IMAGE', url: HTTPS }, 3]) {
      expectBad(() => validateMedia(bad, F), F);
    }
  });

  it('rejects an empty list', () => {
    expectBad(() => validateMedia([], F), F);
  });

  it(`accepts ${MEDIA_MAX_ITEMS} items and rejects ${MEDIA_MAX_ITEMS + 1}`, () => {
    const items = Array.from({ length: MEDIA_MAX_ITEMS }, (_, i) => ({ kind: 'LINK', url: `${HTTPS}${i}` }));
    expect(validateMedia(items, F)).toHaveLength(MEDIA_MAX_ITEMS);
    expectBad(() => validateMedia([...items, { kind: 'LINK', url: HTTPS }], F), F);
  });

  it('names the failing item and uses the given field prefix', () => {
    const items = [...link(HTTPS), ...link(HTTPS), ...image('http://example.com/x.png')];
    expectBad(() => validateMedia(items, F), 'input.media[2].url');
    expectBad(() => validateMedia(items, 'other.place'), 'other.place[2].url');
  });

  it('rejects items that are not objects', () => {
    expectBad(() => validateMedia([null], F), 'input.media[0]');
    expectBad(() => validateMedia([[HTTPS]], F), 'input.media[0]');
    expectBad(() => validateMedia(['https://example.com'], F), 'input.media[0]');
  });

  it('rejects unknown keys, naming them', () => {
    expectBad(() => validateMedia([{ kind: 'LINK', url: HTTPS, alt: 'x' }], F), 'input.media[0].alt');
    const proto = JSON.parse(`[{"kind":"LINK","url":"${HTTPS}","__proto__":{"x":1}}]`);
    expectBad(() => validateMedia(proto, F), 'input.media[0].__proto__');
  });

  it('requires kind IMAGE or LINK', () => {
    for (const kind of [undefined, null, 'image', 'VIDEO', 1]) {
      expectBad(() => validateMedia([{ kind, url: HTTPS }], F), 'input.media[0].kind');
    }
  });

  it('requires a string url', () => {
    for (const url of [undefined, null, 42, '', ['https://example.com']]) {
      expectBad(() => validateMedia([{ kind: 'LINK', url }], F), 'input.media[0].url');
    }
  });

  it(`caps the summed url length at ${MEDIA_TOTAL_URI_CHARS} (at the cap and one past)`, () => {
    const big = dataUriOf(MEDIA_DATA_URI_MAX_CHARS);
    const atCap = [...image(big), ...image(big)];
    expect(validateMedia(atCap, F)).toHaveLength(2);
    const rest = MEDIA_TOTAL_URI_CHARS - MEDIA_DATA_URI_MAX_CHARS - 20;
    expect(validateMedia([...image(big), ...image(dataUriOf(rest)), ...image(httpsOf(20))], F)).toHaveLength(
      3,
    );
    expectBad(() => validateMedia([...image(big), ...image(dataUriOf(rest)), ...image(httpsOf(21))], F), F);
  });
});

describe('validateMedia: IMAGE and LINK urls', () => {
  it('accepts https images and http(s) links', () => {
    expect(validateMedia(image('https://cdn.example.com/a/b.png?x=1#y'), F)).toHaveLength(1);
    expect(validateMedia(link('http://example.com/'), F)).toHaveLength(1);
    expect(validateMedia(link('HTTPS://Example.COM/Path'), F)).toHaveLength(1);
  });

  it('never accepts http: for IMAGE', () => {
    expectBad(() => validateMedia(image('http://example.com/a.png'), F), 'input.media[0].url');
  });

  it('rejects other schemes and relative or scheme-less URLs', () => {
    for (const url of [
      'javascript:alert(1)',
      'ftp://example.com/x',
      'file:///etc/passwd',
      '//example.com/x',
      '/relative/path',
      'example.com',
      'https:example.com',
      'https:/example.com',
      'mailto:a@example.com',
    ]) {
      expectBad(() => validateMedia(link(url), F), 'input.media[0].url');
      expectBad(() => validateMedia(image(url), F), 'input.media[0].url');
    }
  });

  it(`caps a URL at ${MEDIA_URL_MAX_CHARS} code points (at the cap and one past)`, () => {
    expect(validateMedia(link(httpsOf(MEDIA_URL_MAX_CHARS)), F)).toHaveLength(1);
    expectBad(() => validateMedia(link(httpsOf(MEDIA_URL_MAX_CHARS + 1)), F), 'input.media[0].url');
  });

  it('counts URL length in code points, not UTF-16 units', () => {
    const emoji = `${HTTPS}${'😀'.repeat(MEDIA_URL_MAX_CHARS - HTTPS.length)}`;
    expect(emoji.length).toBeGreaterThan(MEDIA_URL_MAX_CHARS);
    expect(validateMedia(link(emoji), F)).toHaveLength(1);
    expectBad(() => validateMedia(link(`${emoji}😀`), F), 'input.media[0].url');
  });

  it('requires a single line: no whitespace, control or invisible format characters', () => {
    for (const url of [
      'https://exa mple.com/',
      'https://example.com/a b',
      'https://example.com/\n',
      'https://example.com/\r\nx',
      'https://example.com/\t',
      ' https://example.com/',
      'https://example.com/\u0000',
      'https://example.com/\u007f',
      'https://exa\u200Bmple.com/',
      'https://example.com/\u200B',
      'https://example.com/\u202Egnp.exe',
      '\uFEFFhttps://example.com/',
      'https://example.com/\u2028',
      'https://example.com/\u00A0',
      'https://example.com/\uD800',
    ]) {
      expectBad(() => validateMedia(link(url), F), 'input.media[0].url');
    }
  });

  it('rejects a user@ part', () => {
    for (const url of [
      'https://user@example.com/',
      'https://user:pass@example.com/',
      'https://@example.com/',
      'https://example.com@evil.example/',
    ]) {
      expectBad(() => validateMedia(link(url), F), 'input.media[0].url');
    }
  });

  it('accepts DNS names, IDNs, dotted IPv4 and bracketed IPv6 hosts', () => {
    for (const url of [
      'https://localhost/',
      'https://a-b.example.co.uk/',
      'https://xn--bcher-kva.de/',
      'https://bücher.de/',
      'https://1.2.3.4/',
      'https://255.255.255.255/',
      'https://0.0.0.0/',
      'https://[::1]/',
      'https://[2001:db8::8a2e:370:7334]:8443/x',
      'https://[::ffff:1.2.3.4]/',
      'https://example.com./x',
    ]) {
      expect(validateMedia(image(url), F), url).toHaveLength(1);
    }
  });

  it('rejects numeric look-alikes and malformed hosts, as written', () => {
    for (const url of [
      'https://999.999.999.999/',
      'https://256.1.1.1/',
      'https://1.2.3/',
      'https://1.2.3.4.5/',
      'https://1.2.3.4./',
      'https://01.2.3.4/',
      'https://0x7f.1/',
      'https://0x7f000001/',
      'https://2130706433/',
      'https://017700000001/',
      'https://example.123/',
      'https://１２７.０.０.１/',
      'https:///path',
      'https://:443/',
      'https://-bad.example/',
      'https://bad-.example/',
      'https://under_score.example/',
      'https://ex%61mple.com/',
      'https://a..b/',
      `https://${'a'.repeat(64)}.example/`,
      'https://[::1/',
      'https://[zz::1]/',
      'https://[1:2:3:4:5:6:7:8:9]/',
      'https://[fe80::1%25eth0]/',
      'https://[::1]x/',
    ]) {
      expectBad(() => validateMedia(image(url), F), 'input.media[0].url');
    }
  });

  it('requires a port in range 1..65535 when given', () => {
    expect(validateMedia(link('https://example.com:1/'), F)).toHaveLength(1);
    expect(validateMedia(link('https://example.com:65535/'), F)).toHaveLength(1);
    expect(validateMedia(link('https://[::1]:8080/'), F)).toHaveLength(1);
    for (const url of [
      'https://example.com:0/',
      'https://example.com:65536/',
      'https://example.com:99999/',
      'https://example.com:/',
      'https://example.com:-1/',
      'https://example.com:8a/',
      'https://example.com:123456/',
      'https://[::1]:0/',
      'https://1.2.3.4:65536/',
    ]) {
      expectBad(() => validateMedia(link(url), F), 'input.media[0].url');
    }
  });
});

describe('validateMedia: data URIs', () => {
  it('accepts a valid base64 png and the other image types', () => {
    expect(validateMedia(image(PNG_URI), F)).toEqual([{ kind: 'IMAGE', url: PNG_URI }]);
    for (const type of ['jpeg', 'gif', 'webp']) {
      expect(validateMedia(image(`data:image/${type};base64,${PNG_1X1}`), F)).toHaveLength(1);
    }
  });

  it('rejects an empty payload and invalid base64', () => {
    for (const url of [
      'data:image/png;base64,',
      'data:image/png;base64,==',
      'data:image/png;base64,A',
      'data:image/png;base64,A===',
      'data:image/png;base64,@@@@',
      'data:image/png;base64,AA=A',
      'data:image/png;base64,AAAA=',
      'data:image/png;base64,AA AA',
      'data:image/png;base64,AA-_',
    ]) {
      expectBad(() => validateMedia(image(url), F), 'input.media[0].url');
    }
  });

  it('rejects other media types and encodings', () => {
    for (const url of [
      'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'data:text/html,<script>alert(1)</script>',
      'data:image/png,rawbytes',
      'data:image/png;charset=utf-8;base64,AAAA',
      'data:image/bmp;base64,AAAA',
      'data:;base64,AAAA',
    ]) {
      expectBad(() => validateMedia(image(url), F), 'input.media[0].url');
    }
  });

  it('never accepts a data URI for LINK', () => {
    expectBad(() => validateMedia(link(PNG_URI), F), 'input.media[0].url');
  });

  it(`caps a data URI at ${MEDIA_DATA_URI_MAX_CHARS} characters (at the cap and one past)`, () => {
    expect(validateMedia(image(dataUriOf(MEDIA_DATA_URI_MAX_CHARS)), F)).toHaveLength(1);
    expectBad(() => validateMedia(image(dataUriOf(MEDIA_DATA_URI_MAX_CHARS + 1)), F), 'input.media[0].url');
  });
});

describe('validateMedia: captions', () => {
  it('keeps a caption verbatim, XSS-looking text included', () => {
    const caption = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    expect(validateMedia([{ kind: 'LINK', url: HTTPS, caption }], F)).toEqual([
      { kind: 'LINK', url: HTTPS, caption },
    ]);
  });

  it('rejects blank and non-string captions', () => {
    for (const caption of ['', '   ', '\n\t', '\u200B', 5, true, {}]) {
      expectBad(() => validateMedia([{ kind: 'LINK', url: HTTPS, caption }], F), 'input.media[0].caption');
    }
  });

  it(`caps a caption at ${MEDIA_CAPTION_MAX_CHARS} code points (at the cap and one past)`, () => {
    const at = '🎉'.repeat(MEDIA_CAPTION_MAX_CHARS);
    expect(validateMedia([{ kind: 'LINK', url: HTTPS, caption: at }], F)[0]?.caption).toBe(at);
    expectBad(
      () => validateMedia([{ kind: 'LINK', url: HTTPS, caption: `${at}x` }], F),
      'input.media[0].caption',
    );
  });
});

describe('validateMedia: never throws anything but BAD_USER_INPUT', () => {
  const check = (value: unknown) => {
    try {
      validateMedia(value, F);
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('BAD_USER_INPUT');
      expect((err as DomainError).field?.startsWith(F)).toBe(true);
    }
  };

  it('holds for arbitrary values', () => {
    fc.assert(fc.property(fc.anything(), check));
    fc.assert(fc.property(fc.jsonValue(), check));
  });

  it('holds for arbitrary media-shaped items', () => {
    const item = fc.record(
      {
        kind: fc.oneof(fc.constantFrom('IMAGE', 'LINK'), fc.anything()),
        url: fc.oneof(
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
          fc.string(),
          fc.anything(),
        ),
        caption: fc.oneof(fc.string(), fc.constant(null), fc.anything()),
      },
      { requiredKeys: [] },
    );
    fc.assert(fc.property(fc.array(item, { maxLength: 10 }), check));
  });

  it('holds for arbitrary strings after a scheme', () => {
    const url = fc
      .tuple(
        fc.constantFrom('https://', 'http://', 'data:image/png;base64,', 'HTTPS://'),
        fc.string({ unit: 'binary' }),
      )
      .map(([a, b]) => a + b);
    fc.assert(fc.property(url, fc.constantFrom('IMAGE', 'LINK'), (u, kind) => check([{ kind, url: u }])));
  });
});
