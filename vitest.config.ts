import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { defineConfig } from "vitest/config"

/** The integration suite runs once per live transport: the same tests must pass on both. */
const integration = (transport: "socket" | "exec") => ({
  extends: true as const,
  test: {
    name: `integration-${transport}`,
    include: ["test/integration/**/*.test.ts"],
    env: { ETM_TEST_TRANSPORT: transport }
  }
})

/**
 * The version matrix: ETM_TEST_TMUX_MATRIX names a directory with a `<version>/tmux` wrapper per
 * other tmux version (.ci/run makes it with scripts/ci/tmux-matrix.sh), and the integration suite
 * runs once more on each, on the server's default transport. Unset (a laptop), there is none.
 */
const tmuxMatrix = (directory = process.env.ETM_TEST_TMUX_MATRIX) =>
  directory === undefined || directory === "" ? [] : readdirSync(directory).sort().map((version) => ({
    extends: true as const,
    test: {
      name: `integration-tmux-${version}`,
      include: ["test/integration/**/*.test.ts"],
      env: { ETM_TEST_TMUX: join(directory, version, "tmux") }
    }
  }))

/**
 * The remote column (issue 22): the read, input, watching and run_command tests once more with the
 * worlds' tmux servers behind a private sshd on loopback and every server-targeting call sent with
 * `host: "ci"` (test/support/testHost.ts, PrivateTmux.ts, runTool.ts), plus the sshd's own test and
 * the remote-only one of sessions on a host (remote-sessions, skipped in the other projects).
 * On wherever OpenSSH's sshd is installed (.ci/run installs it); ETM_TEST_REMOTE_PROJECT=0 turns it off.
 */
const remoteHost = (enabled = process.env.ETM_TEST_REMOTE_PROJECT !== "0" && existsSync("/usr/sbin/sshd")) =>
  enabled
    ? [{
      extends: true as const,
      test: {
        name: "integration-remote",
        include: ["hierarchy", "capture", "input", "watch", "command", "command-screen", "private-sshd", "remote-sessions"].map((name) =>
          `test/integration/${name}.test.ts`
        ),
        // A forwarded socket is served over the socket transport only.
        env: { ETM_TEST_HOST: "ci", ETM_TEST_TRANSPORT: "socket" }
      }
    }]
    : []

export default defineConfig({
  test: {
    setupFiles: ["test/support/setup.ts"],
    // Real tmux servers are cheap but not free: two cores, keep parallelism modest. (Vitest 4 dropped
    // `minWorkers`; `maxWorkers` is the one knob, shared by all projects.)
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      integration("socket"),
      integration("exec"),
      ...tmuxMatrix(),
      ...remoteHost(),
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } }
    ]
  }
})
