/**
 * An in-memory `Tmux` for tests: a world of servers (sessions, windows, panes) held by reference,
 * interpreting the commands the operations send and failing with tmux's own texts, so a program
 * sees the errors the live transports give. `FakeTmuxState` shows the world and every command list.
 */
import type * as Layer from "effect/Layer"
import {
  type FakeServer,
  type FakeServerSpec,
  FakeTmux,
  type FakeTmuxState,
  type FakeTmuxStateShape,
  type FakeWorld
} from "../testing/FakeTmux.js"
import type { Tmux, TmuxShape } from "../tmux/Tmux.js"

export {
  type FakeClient,
  type FakeInvocation,
  type FakePane,
  type FakePaneSpec,
  type FakeServer,
  type FakeServerSpec,
  type FakeSession,
  type FakeSessionSpec,
  FakeTmuxState,
  type FakeTmuxStateShape,
  type FakeWindow,
  type FakeWindowSpec,
  type FakeWinlink,
  type FakeWorld
} from "../testing/FakeTmux.js"

/** `Tmux` and `FakeTmuxState` over `world` (default: empty); the same world serves every use of the layer. */
export const layer: (world?: FakeWorld) => Layer.Layer<Tmux | FakeTmuxState> = FakeTmux.layer

/** The fake's `Tmux` and state without a layer, over `world`, kept by reference. */
export const make: (world?: FakeWorld) => { readonly tmux: TmuxShape; readonly state: FakeTmuxStateShape } = FakeTmux.make

/** A server built from a spec, ids allocated in spec order (`$0`, `@0`, `%0`, …) as tmux would. */
export const server: (spec?: FakeServerSpec) => FakeServer = FakeTmux.server
