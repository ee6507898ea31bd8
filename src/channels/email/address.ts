// An e-mail address as a recipient or sender: one plain `local@domain` mailbox, nothing a mail
// header could read as a second recipient, a display name or another header (no commas, angle
// brackets, quotes, spaces or line breaks). Deliberately narrower than RFC 5322.
const ADDRESS =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export const ADDRESS_MESSAGE = 'must be an e-mail address (name@example.com)';

export function isEmailAddress(value: string): boolean {
  if (value.length > 254 || !ADDRESS.test(value)) return false;
  const local = value.slice(0, value.indexOf('@'));
  return !local.startsWith('.') && !local.endsWith('.') && !local.includes('..');
}
