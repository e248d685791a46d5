/**
 * A directory only this user can enter, in a place others share (/tmp): made 0700 if missing, and
 * refused unless it is a real directory (not a symlink) owned by this uid with no access for others.
 * run_command's logs and the ssh sockets live in one.
 */
import * as fs from "node:fs"

/** Makes `path` if missing and checks it; throws an Error that says how to recover. */
export const ensurePrivateDirectory = (path: string, uid: number): void => {
  try {
    fs.mkdirSync(path, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  }
  const stat = fs.lstatSync(path)
  if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) {
    throw new Error(`${path} is not a private directory of uid ${uid}; remove it and retry`)
  }
}
