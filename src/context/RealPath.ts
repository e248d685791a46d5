/**
 * Paths compared by where they really lead: tmux resolves TMUX_TMPDIR through realpath, and a
 * symlinked directory must still name the same socket.
 */
import { realpathSync } from "node:fs"

/** The path with every symlink resolved, or the path itself when it cannot be (it does not exist). */
export const realPathOrSelf = (path: string): string => {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/** Two paths that name the same file, as given or through their real location. */
export const samePath = (a: string, b: string): boolean => a === b || realPathOrSelf(a) === realPathOrSelf(b)
