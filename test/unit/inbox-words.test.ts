// What the inbox says: time left, answers, 409s and other refusals, and how API responses
// become errors of the right kind.
import { describe, expect, it } from 'vitest';
import {
  BadUserInputError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  UnauthenticatedError,
} from '../../src/client/errors.ts';
import { InboxViewerDocument } from '../../src/client/generated/graphql.ts';
import type { FetchLike } from '../../src/client/transport.ts';
import {
  answerErrorMessage,
  answerRows,
  conflictMessage,
  conflictOutcome,
  externalPayloadHead,
} from '../../src/inbox/lib/answers.ts';
import { createInboxApi, failureText, isRefusedKey, UNREACHABLE_TEXT } from '../../src/inbox/lib/api.ts';
import type { Question } from '../../src/inbox/lib/model.ts';
import { formatWhen, timeLeft } from '../../src/inbox/lib/time.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('timeLeft', () => {
  it.each([
    [30 * S, '30 s left', true],
    [4 * M + 5 * S, '4 min 5 s left', true],
    [4 * M, '4 min left', true],
    [42 * M, '42 min left', false],
    [3 * H + 7 * M, '3 h 7 min left', false],
    [5 * H, '5 h left', false],
    [3 * 24 * H, '3 days left', false],
  ])('%i ms → %s', (ms, text, urgent) => {
    expect(timeLeft(1_000_000 + ms, 1_000_000)).toEqual({ text, urgent, expired: false });
  });

  it('says when the time is up, and when no deadline is known', () => {
    expect(timeLeft(1000, 1000)).toEqual({ text: 'time is up', urgent: true, expired: true });
    expect(timeLeft(Number.NaN, 0).text).toBe('no deadline known');
    expect(formatWhen(Number.NaN)).toBe('');
    expect(formatWhen(Date.UTC(2025, 2, 3, 14, 5, 9), 'en-GB')).toMatch(/3 Mar 2025/);
  });
});

describe('answerRows', () => {
  it('shows texts, yes/no and choices as one row, objects by field (schema titles first)', () => {
    expect(answerRows({ answer: 'line 1\nline 2', schema: null })).toEqual([
      { label: '', value: 'line 1\nline 2' },
    ]);
    expect(answerRows({ answer: false, schema: null })).toEqual([{ label: '', value: 'No' }]);
    expect(
      answerRows({
        answer: { name: 'Ada', seats: 5, tags: ['a'] },
        schema: { type: 'object', properties: { name: { title: 'Full name' } } },
      }),
    ).toEqual([
      { label: 'Full name', value: 'Ada' },
      { label: 'seats', value: '5' },
      { label: 'tags', value: '[\n  "a"\n]' },
    ]);
    expect(answerRows({ answer: null, schema: null })).toBeNull();
  });
});

describe('externalPayloadHead (the history of an EXTERNAL answer)', () => {
  it('says what the callback carried, whether its signature was checked, and when it carried nothing', () => {
    const body = { answer: { paid: true, receipt: 'R-1' }, serverVerified: false, sensitive: false };
    expect(externalPayloadHead(body)).toEqual({ head: 'The callback carried:', empty: false });
    expect(answerRows({ ...body, schema: null })).toEqual([
      { label: 'paid', value: 'Yes' },
      { label: 'receipt', value: 'R-1' },
    ]);
    expect(externalPayloadHead({ ...body, serverVerified: true }).head).toBe(
      'The callback carried (signature verified by the server):',
    );
    expect(externalPayloadHead({ ...body, answer: {} }).empty).toBe(true);
    expect(externalPayloadHead({ ...body, answer: null }).empty).toBe(true);
    // A sensitive payload is never shown: AnswerView says so, not "empty".
    expect(externalPayloadHead({ ...body, answer: null, sensitive: true }).empty).toBe(false);
    // Query parameters: a repeated key is a list.
    expect(answerRows({ answer: { status: 'ok', tag: ['a', 'b'] }, schema: null })?.[1]).toEqual({
      label: 'tag',
      value: '[\n  "a",\n  "b"\n]',
    });
  });
});

function question(over: Partial<Question>): Question {
  return { status: 'PENDING', answeredBy: null, cancelReason: null, ...over } as Question;
}

describe('409 wording', () => {
  it('tells answered elsewhere from timed out and cancelled', () => {
    expect(conflictMessage('ALREADY_ANSWERED', question({ status: 'ANSWERED', answeredBy: 'ops' }))).toBe(
      'Already answered elsewhere (by ops): your answer was not recorded.',
    );
    expect(conflictMessage('ALREADY_ANSWERED', null)).toBe(
      'Already answered elsewhere: your answer was not recorded.',
    );
    expect(conflictMessage('QUESTION_CLOSED', question({ status: 'TIMED_OUT' }))).toBe(
      'This question timed out before your answer arrived: your answer was not recorded.',
    );
    expect(conflictMessage('QUESTION_CLOSED', question({ status: 'CANCELLED', cancelReason: 'moot' }))).toBe(
      'This question was cancelled (moot): your answer was not recorded.',
    );
    expect(conflictMessage('QUESTION_CLOSED', null)).toBe(
      'This question has timed out or been cancelled: your answer was not recorded.',
    );
    expect(conflictOutcome('QUESTION_CLOSED', null)).toBe('CLOSED');
    expect(conflictOutcome('ALREADY_ANSWERED', null)).toBe('ANSWERED');
    expect(conflictOutcome('QUESTION_CLOSED', question({ status: 'CANCELLED' }))).toBe('CANCELLED');
  });

  it('words the other refusals', () => {
    expect(answerErrorMessage(new NotFoundError('question not found'))).toMatch(/no longer exists/);
    expect(answerErrorMessage(new ForbiddenError('the asker of an approval may not decide it'))).toBe(
      'You may not answer this question: the asker of an approval may not decide it',
    );
    expect(answerErrorMessage(new BadUserInputError('answer must be a string'))).toBe(
      'The answer was refused: answer must be a string',
    );
    expect(answerErrorMessage(new NetworkError('cannot reach http://x/graphql: ECONNREFUSED'))).toBe(
      UNREACHABLE_TEXT,
    );
  });
});

describe("the inbox's API: the SDK's transport and errors", () => {
  const ORIGIN = 'http://inbox.test';
  const respond =
    (status: number, body: unknown): FetchLike =>
    async () =>
      new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
  const api = (fetch: FetchLike) => createInboxApi({ key: 'k-1', origin: ORIGIN, fetch });

  it('returns the data; the key goes as a Bearer header, never in the URL, without cookies or cache', async () => {
    let seen: { url: string; init: RequestInit } | null = null;
    const data = await api(async (url, init) => {
      seen = { url, init };
      return new Response(JSON.stringify({ data: { viewer: { id: 'ops', roles: [], restricted: false } } }));
    }).request(InboxViewerDocument, {});
    expect(data.viewer.id).toBe('ops');
    expect(seen!.url).toBe(`${ORIGIN}/graphql`);
    expect((seen!.init.headers as Record<string, string>).authorization).toBe('Bearer k-1');
    expect(seen!.init.credentials).toBe('omit');
    expect(seen!.init.cache).toBe('no-store');
    expect(JSON.parse(String(seen!.init.body)).query).toContain('query InboxViewer');
  });

  it('raises the SDK error classes: a refused key, an API error with code and field, no answer at all', async () => {
    const refused = await api(respond(401, {}))
      .request(InboxViewerDocument, {})
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UnauthenticatedError);
    expect(isRefusedKey(refused)).toBe(true);
    const gqlRefused = await api(
      respond(200, { errors: [{ message: 'missing', extensions: { code: 'UNAUTHENTICATED' } }] }),
    )
      .request(InboxViewerDocument, {})
      .catch((e: unknown) => e);
    expect(isRefusedKey(gqlRefused)).toBe(true);
    const bad = await api(
      respond(200, {
        errors: [
          {
            message: 'answer.email is required',
            extensions: { code: 'BAD_USER_INPUT', field: 'answer.email' },
          },
        ],
      }),
    )
      .request(InboxViewerDocument, {})
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadUserInputError);
    expect(bad).toMatchObject({ code: 'BAD_USER_INPUT', field: 'answer.email' });
    expect(isRefusedKey(bad)).toBe(false);
    expect(failureText(bad, 'x')).toBe('answer.email is required');
    for (const fetch of [
      respond(502, '<html>bad gateway</html>'),
      async (): Promise<Response> => {
        throw new TypeError('fetch failed');
      },
    ]) {
      const down = await api(fetch)
        .request(InboxViewerDocument, {})
        .catch((e: unknown) => e);
      expect(down).toBeInstanceOf(NetworkError);
      expect(failureText(down, 'x')).toBe(UNREACHABLE_TEXT);
    }
    expect(failureText(new Error('boom'), 'The history could not be read.')).toBe(
      'The history could not be read.',
    );
  });
});
