import { basename, delimiter, dirname, isAbsolute } from "node:path"

// No test may reach the developer's own tmux server through an inherited $TMUX.
delete process.env.TMUX
delete process.env.TMUX_PANE

// A project of the version matrix (vitest.config.ts) names its tmux: a wrapper called `tmux`, put
// first on PATH for every tmux a test starts and, through the worlds' environment, for the shells
// in their panes (run_command's typed line and its recorders call `tmux` by name).
const requested = process.env.ETM_TEST_TMUX
if (requested !== undefined && requested !== "") {
  if (!isAbsolute(requested) || basename(requested) !== "tmux") {
    throw new Error(`ETM_TEST_TMUX must be the absolute path of a program named tmux (got ${requested})`)
  }
  const [first] = (process.env.PATH ?? "").split(delimiter)
  // Setup runs before every test file, in workers that may be reused.
  if (first !== dirname(requested)) process.env.PATH = [dirname(requested), process.env.PATH ?? "/usr/bin:/bin"].join(delimiter)
}
