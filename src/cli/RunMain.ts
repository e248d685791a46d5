/**
 * Runs the CLI's program as the process's main fiber, on Effect's own `Runtime.makeRunMain` (no
 * platform package, so no undici in the bundle): SIGINT and SIGTERM interrupt the fiber, so the
 * layers' finalizers (owned sessions killed, tmux children ended) run before `teardown` decides the
 * exit code.
 */
import * as Runtime from "effect/Runtime"

export const runMain = Runtime.makeRunMain(({ fiber, teardown }) => {
  const interrupt = () => fiber.interruptUnsafe(fiber.id)
  fiber.addObserver((exit) => {
    process.removeListener("SIGINT", interrupt)
    process.removeListener("SIGTERM", interrupt)
    // The teardown decides the exit code; the process ends with it.
    teardown(exit, (code) => process.exit(code))
  })
  process.on("SIGINT", interrupt)
  process.on("SIGTERM", interrupt)
})
