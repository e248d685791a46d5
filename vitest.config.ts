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
      integration("exec"),
      { extends: true, test: { name: "e2e", include: ["test/e2e/**/*.test.ts"] } }
    ]
  }
})
