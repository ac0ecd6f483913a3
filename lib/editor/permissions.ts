/**
 * Node-RED's permission rule for an admin user's scope (`*`, `read`, `write`, `<name>.read`, a list),
 * as its editor API applies it. The sidebar checks it itself, after Node-RED has authenticated the
 * request, so a signed-in user who lacks the permission gets 403 (Node-RED's own check answers 401,
 * which tells a browser to sign in again rather than that the user may not do this).
 */
export function hasPermission(scope: unknown, permission: string): boolean {
  if (Array.isArray(scope)) return scope.some((entry) => hasPermission(entry, permission));
  if (typeof scope !== 'string') return false;
  if (scope === '*' || scope === permission) return true;
  if (scope === 'read' || scope === '*.read') return /^((.+)\.)?read$/.test(permission);
  if (scope === 'write' || scope === '*.write') return /^((.+)\.)?write$/.test(permission);
  return false;
}
