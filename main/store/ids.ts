import { randomBytes } from 'node:crypto';

/** Short, unguessable ids with a readable prefix (t_ task, g_ grant, p_ prompt). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`;
}
