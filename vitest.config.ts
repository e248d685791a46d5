import { defineConfig } from "vitest/config"

/**
 * The integration suite runs once per live transport: the same tests must pass on both. Except the
 * literalization sweep on control: its 8 concurrent callers create and kill sessions, the control
 * client's own among them, and its re-attaching in that churn crashes tmux 3.3a (a tmux bug fixed
 * in 3.7, see docs/configuration.md).
 */
const integration = (transport: "socket" | "control" | "exec") => ({
  extends: true as const,
  test: {
    name: `integration-${transport}`,
    include: ["test/integration/**/*.test.ts"],
    exclude: transport === "control" ? ["test/integration/literalization.test.ts"] : [],
    env: { ETM_TEST_TRANSPORT: transport }
  }
})

export default defineConfig({
  test: {
    setupFiles: ["test/support/setup.ts"],
    // Real tmux servers are cheap but not free: two cores, keep parallelism modest.
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      integration("socket"),
      integration("control"),
      integration("exec"),
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } }
    ]
  }
})
