/**
 * The remote host the integration suite runs against, if any: ETM_TEST_HOST names it (the vitest
 * project `integration-remote` sets `ci`). Set, every world's tmux server lives in a private sshd's
 * remote world (PrivateTmux.ts) and runTool sends `host: <it>` to every tool that targets a server.
 * Unset (every other project), nothing changes.
 */
const requested = process.env.ETM_TEST_HOST

// The product's rule for host names: a socket-name-like word; `local` is this machine.
if (requested !== undefined && requested !== "" && (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(requested) || requested === "local")) {
  throw new Error(`ETM_TEST_HOST must name a remote host (a word other than "local"), got ${JSON.stringify(requested)}`)
}

export const testHost: string | undefined = requested === "" ? undefined : requested
