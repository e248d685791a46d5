// The bench's "remote host": a private sshd on loopback (test/support/PrivateSshd.ts), run by
// `node --import tsx bench/private-sshd.ts` as a child of bench/run.mjs. It prints one JSON line
// (the alias, its ssh_config and the remote world's TMUX_TMPDIR) and stops sshd when its stdin closes.
import { startPrivateSshd } from "../test/support/PrivateSshd.js"

const sshd = startPrivateSshd({ alias: "etm-bench" })
process.stdout.write(
  `${JSON.stringify({ alias: sshd.alias, sshConfigPath: sshd.sshConfigPath, tmpdir: sshd.remote.tmpdir, home: sshd.remote.home })}\n`
)
process.stdin.resume()
process.stdin.on("end", () => {
  sshd.stop()
  process.exit(0)
})
