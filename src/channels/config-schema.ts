// Pieces of plugin config schemas shared by the built-ins and the manifest.
import { z } from 'zod';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True for `https://…`, or `http://` on a loopback host (how tests reach a local fake). */
export function isAllowedEndpoint(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

/** An endpoint URL: https, or http on a loopback host. No credentials in it. */
export const endpointUrl = z
  .string()
  .max(2048)
  .refine(isAllowedEndpoint, { message: 'must be an https URL (or http on a loopback host)' });

/** The name of an environment variable (the value is looked up, never written in the manifest). */
export const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, { message: 'must be an environment variable name' });
