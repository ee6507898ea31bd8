// Registers the inbox's service worker (public/sw.js, API.md §19): it caches the shell, shows
// pushes as notifications and answers from their buttons. Browsers without service workers, or
// a page that is not a secure context, simply run without it.
export async function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
  if (!('serviceWorker' in navigator)) return null;
  try {
    return await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  } catch {
    return null;
  }
}
