// The inbox's service worker (API.md §19). Three jobs:
// 1. The shell works offline-first: the page, its hashed assets, the manifest and the icons are
//    cached; nothing else is. API requests (/graphql, /api/, /auth/, /mcp, ...) are never
//    intercepted, so answers and questions are always the server's, never a cached copy.
// 2. Web Push: each push (encrypted by the server, RFC 8291; the browser decrypts it) becomes a
//    notification. A sensitive question's says only that a question is waiting.
// 3. Notification actions: Approve / Reject on CONFIRM and APPROVAL questions answer from the
//    notification, posting with the session cookie, without opening the page; anything else
//    opens the inbox at the question.
const SHELL_CACHE = 'tai-inbox-shell-v1';
const SHELL = ['/', '/manifest.webmanifest', '/icons/icon-192.png', '/icons/icon-512.png'];
const ANSWER_MUTATION = 'mutation ($id: ID!, $a: JSON!) { answer(id: $id, answer: $a) { id status } }';

/** Shell paths only: the page, its hashed assets, the manifest, the icons. */
function isShell(url) {
  if (url.origin !== self.location.origin) return false;
  const p = url.pathname;
  return (
    p === '/' ||
    p === '/index.html' ||
    p === '/manifest.webmanifest' ||
    p.startsWith('/assets/') ||
    p.startsWith('/icons/')
  );
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      await cache.addAll(SHELL);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== SHELL_CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (!isShell(url)) return;
  if (url.pathname.startsWith('/assets/')) {
    // Content-hashed: a cached copy is always right.
    event.respondWith(
      (async () => {
        const cache = await caches.open(SHELL_CACHE);
        const hit = await cache.match(request);
        if (hit) return hit;
        const response = await fetch(request);
        if (response.ok) await cache.put(request, response.clone());
        return response;
      })(),
    );
    return;
  }
  // The page, the manifest and the icons: the network first (a new build is seen at once), the
  // cached copy when offline.
  event.respondWith(
    (async () => {
      const cache = await caches.open(SHELL_CACHE);
      try {
        const response = await fetch(request);
        if (response.ok) await cache.put(url.pathname === '/index.html' ? '/' : request, response.clone());
        return response;
      } catch (err) {
        const hit = await cache.match(url.pathname === '/index.html' ? '/' : request);
        if (hit) return hit;
        throw err;
      }
    })(),
  );
});

/** What the server sends (src/engine/people/push.ts); anything else shows a plain "question waiting". */
function readPush(event) {
  try {
    const data = event.data ? event.data.json() : null;
    if (data && data.v === 1 && typeof data.title === 'string') return data;
  } catch {
    // Not JSON: fall through to the plain notification.
  }
  return { v: 1, title: 'A question is waiting', body: '', actions: [] };
}

self.addEventListener('push', (event) => {
  const push = readPush(event);
  const actions = Array.isArray(push.actions) ? push.actions : [];
  event.waitUntil(
    self.registration.showNotification(push.title, {
      body: push.body || '',
      tag: push.id ? `question-${push.id}` : 'question',
      icon: '/icons/icon-192.png',
      data: {
        id: push.id || null,
        url: push.url || '/',
        answers: Object.fromEntries(actions.map((a) => [a.action, a.answer])),
      },
      actions: actions.map((a) => ({ action: a.action, title: a.title })),
    }),
  );
});

/** Answers question `id` with the session cookie; resolves with the server's answer or error. */
async function answerFromNotification(id, answer) {
  const response = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: ANSWER_MUTATION, variables: { id, a: answer } }),
  });
  const body = await response.json().catch(() => null);
  const error = body && Array.isArray(body.errors) && body.errors[0];
  return response.ok && !error
    ? { ok: true }
    : { ok: false, message: error?.message || `HTTP ${response.status}` };
}

async function openInbox(url) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const w of windows) {
    if (new URL(w.url).origin === self.location.origin) {
      await w.focus();
      if ('navigate' in w) await w.navigate(url);
      return;
    }
  }
  await self.clients.openWindow(url);
}

/** The handler, named so tests can dispatch it with a notification of their own. */
async function onNotificationClick(notification, action) {
  const data = notification.data || {};
  notification.close();
  const answers = data.answers || {};
  if (action && data.id && Object.hasOwn(answers, action)) {
    const result = await answerFromNotification(data.id, answers[action]);
    if (!result.ok) {
      // Signed out, already answered, or offline: say so, and let a tap open the inbox.
      await self.registration.showNotification('The answer was not recorded', {
        body: result.message,
        tag: `question-${data.id}`,
        icon: '/icons/icon-192.png',
        data: { id: data.id, url: data.url || '/', answers: {} },
      });
    }
    return result;
  }
  await openInbox(data.url || '/');
  return { ok: true, opened: true };
}
self.onNotificationClick = onNotificationClick;

self.addEventListener('notificationclick', (event) => {
  event.waitUntil(onNotificationClick(event.notification, event.action));
});
