import { constants } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { prop } from './lib.js';
import { ConnectionTestError, type Tester } from './types.js';

/**
 * folder: the path in `properties.path` (or `url`, a plain path or file://) must exist, be a directory and be
 * readable; the payload is the path and how many entries it lists.
 */
export const folderTester: Tester = async (c) => {
  const raw = prop(c, 'path') ?? c.url?.trim();
  if (!raw) throw new ConnectionTestError('path is required (properties.path or url)');
  let path = raw;
  if (/^file:\/\//i.test(raw)) {
    try {
      path = decodeURIComponent(new URL(raw).pathname);
    } catch {
      throw new ConnectionTestError(`url is not a valid file:// URL: ${raw}`);
    }
  }
  if (!path.startsWith('/')) throw new ConnectionTestError(`path must be absolute (got ${path})`);
  try {
    const s = await stat(path);
    if (!s.isDirectory()) throw new ConnectionTestError(`${path} is not a folder`);
    await access(path, constants.R_OK | constants.X_OK);
    const entries = await readdir(path);
    return { path, entries: entries.length };
  } catch (err) {
    if (err instanceof ConnectionTestError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ConnectionTestError(`${path} does not exist`);
    if (code === 'EACCES' || code === 'EPERM') throw new ConnectionTestError(`${path} is not readable (permission denied)`);
    throw new ConnectionTestError(`${path} could not be read: ${(err as Error).message}`);
  }
};
